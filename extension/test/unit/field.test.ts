import { describe, expect, it } from 'vitest';
import { fieldFromCompare } from '../../src/lib/field';

describe('fieldFromCompare', () => {
  it('keeps each class p50/p75 of the TLS phase and leaves suppressed cells out', () => {
    const f = fieldFromCompare({
      cells: [
        { key: { handshakeClass: '1rtt' }, records: 900, clients: 40, tls: { p50: 41.2, p75: 60.1, p95: 130 } },
        { key: { handshakeClass: 'full-2rtt' }, suppressed: true },
        { key: { handshakeClass: 'nonsense' }, records: 5, tls: { p50: 1, p75: 2 } },
      ],
    });
    expect(f).toEqual({
      available: true,
      scope: 'all',
      site: null,
      byClass: { '1rtt': { p50: 41.2, p75: 60.1, p95: 130, records: 900 } },
    });
  });
  it('says unavailable for an empty or unexpected answer', () => {
    expect(fieldFromCompare({ cells: [] }).available).toBe(false);
    expect(fieldFromCompare(null).available).toBe(false);
    expect(fieldFromCompare({ rows: 1 }).available).toBe(false);
  });
});
