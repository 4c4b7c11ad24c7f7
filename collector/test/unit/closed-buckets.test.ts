/**
 * What the closed buckets kept (query/closed-buckets.ts) do on their own: which stored segments drop them, their
 * age limit, their memory budget. Their answers against a real store: test/app/closed-buckets.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { Cell } from '../../src/query/cells';
import { ClosedBuckets, closedUntil, MAX_AGE_MS } from '../../src/query/closed-buckets';

const NOW = Date.UTC(2026, 10, 20, 12, 30);
const edge = closedUntil(NOW, 'hour');
const cell = (t: number): Cell => ({ key: { stack: 'TLS 1.3' }, t, records: 40, clients: 30 });
const seconds = (ms: number) => (ms / 1000).toFixed(3);

function keptOne(now = () => NOW): ClosedBuckets {
  const kept = new ClosedBuckets(1 << 20, now);
  kept.set('a@1', [cell(edge - 3_600_000)]);
  return kept;
}

describe('closed buckets kept', () => {
  it('a segment whose rows are all in open hours keeps them; one late row in any line drops them all', () => {
    const columns = ['batchId', 'ts', 'site'];
    const line = (ts: number) => `b1\t${seconds(ts)}\tshop.example.com\n`;
    const kept = keptOne();
    kept.noteStored({ format: 'TabSeparated', columns, rows: line(edge + 60_000) + line(NOW) });
    expect(kept.size).toBe(1);
    kept.noteStored({ format: 'TabSeparated', columns, rows: line(NOW) + line(edge - 1000) + line(NOW) });
    expect(kept.size).toBe(0);
    expect(kept.heldBytes).toBe(0);
  });

  it('a segment that names no time column (the oldest spool format) counts as late', () => {
    const kept = keptOne();
    kept.noteStored({ format: 'JSONEachRow', columns: null, rows: `{"ts":${NOW}}\n` });
    expect(kept.size).toBe(0);
  });

  it('a bucket is worked out again once it is MAX_AGE_MS old', () => {
    let clock = NOW;
    const kept = keptOne(() => clock);
    clock += MAX_AGE_MS - 1;
    expect(kept.get('a@1')).toHaveLength(1);
    clock += 1;
    expect(kept.get('a@1')).toBeUndefined();
    expect(kept.heldBytes).toBe(0);
  });

  it('holds at most its budget, the oldest dropped first; none when the budget is 0', () => {
    const one = 2 * ('k@0'.length + JSON.stringify([cell(0)]).length);
    const kept = new ClosedBuckets(3 * one, () => NOW);
    for (let i = 0; i < 5; i++) kept.set(`k@${i}`, [cell(0)]);
    expect(kept.size).toBe(3);
    expect(kept.heldBytes).toBeLessThanOrEqual(3 * one);
    expect(kept.get('k@0')).toBeUndefined();
    expect(kept.get('k@4')).toHaveLength(1);
    const off = new ClosedBuckets(0, () => NOW);
    off.set('k@0', [cell(0)]);
    expect(off.size).toBe(0);
  });
});
