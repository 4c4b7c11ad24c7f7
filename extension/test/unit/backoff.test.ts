import { describe, expect, it } from 'vitest';
import { backoffDelay, retryAfterMs } from '../../src/lib/backoff';
import { BACKOFF_BASE_MS, BACKOFF_MAX_MS, RETRY_AFTER_MAX_MS } from '../../src/lib/constants';

describe('backoffDelay', () => {
  it('doubles per attempt, jitters within the upper half, and stops at the cap', () => {
    expect(backoffDelay(0, 0)).toBe(BACKOFF_BASE_MS / 2);
    expect(backoffDelay(0, 1)).toBe(BACKOFF_BASE_MS);
    expect(backoffDelay(3, 0.5)).toBe(Math.round(BACKOFF_BASE_MS * 8 * 0.75));
    expect(backoffDelay(50, 1)).toBe(BACKOFF_MAX_MS);
    expect(backoffDelay(50, 0)).toBe(BACKOFF_MAX_MS / 2);
  });
});

describe('retryAfterMs', () => {
  const now = Date.parse('2026-11-23T08:00:00Z');
  it('reads delta-seconds and HTTP dates', () => {
    expect(retryAfterMs('120', now)).toBe(120_000);
    expect(retryAfterMs('Mon, 23 Nov 2026 08:01:30 GMT', now)).toBe(90_000);
  });
  it('ignores what it cannot read and bounds the rest', () => {
    expect(retryAfterMs(null, now)).toBeNull();
    expect(retryAfterMs('soon', now)).toBeNull();
    expect(retryAfterMs('Mon, 23 Nov 2026 07:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs('99999999', now)).toBe(RETRY_AFTER_MAX_MS);
  });
});
