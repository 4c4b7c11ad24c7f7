import { describe, expect, it } from 'vitest';
import { fieldRank, verdictOf } from '../../src/lib/verdict';
import type { FieldPercentiles } from '../../src/messages';
import { record } from '../support/records';

const field: FieldPercentiles = {
  available: true,
  scope: 'all',
  site: null,
  byClass: { '1rtt': { p50: 40, p75: 60, p95: 100, records: 500 } },
};

describe('the popup verdict', () => {
  it('places a time among the field by its percentiles', () => {
    expect(fieldRank(40, field.byClass['1rtt']!)).toBe(50);
    expect(fieldRank(50, field.byClass['1rtt']!)).toBe(62.5);
    expect(fieldRank(20, field.byClass['1rtt']!)).toBe(25);
    expect(fieldRank(80, field.byClass['1rtt']!)).toBe(85);
    const slow = fieldRank(1000, field.byClass['1rtt']!);
    expect(slow).toBeGreaterThan(95);
    expect(slow).toBeLessThanOrEqual(99);
  });

  it("says the median of today's connections and how many of 10 of the same kind were slower", () => {
    const today = Date.now() - 3_600_000;
    const records = [
      record({ tls: 20 }),
      record({ tls: 30 }),
      record({ tls: 40 }),
      record({ tls: 900, ts: today - 86_400_000 }),
    ];
    const v = verdictOf(records, field, today);
    expect(v).toEqual({ count: 3, medianMs: 30, quickerThanOutOf10: 6 });
  });

  it('has no comparison without field figures of the same kind, and nothing without records today', () => {
    expect(verdictOf([record({ handshakeClass: 'full-2rtt', tls: 80 })], field, 0)).toEqual({
      count: 1,
      medianMs: 80,
      quickerThanOutOf10: null,
    });
    expect(verdictOf([], field, 0)).toEqual({ count: 0, medianMs: null, quickerThanOutOf10: null });
  });
});
