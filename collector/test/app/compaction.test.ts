/**
 * The closed months of the rollups and of the what-if's client sample on a real embedded store: merged into one
 * part each, with the same answers and rows; the month still open, and a month merged already, left as they are.
 */
import { describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { closedPartitionsToMerge, compactClosedMonths, COMPACTED_TABLES } from '../../src/platform/store/compaction';
import { CLIENT_SAMPLE_TABLE } from '../../src/whatif/query';
import { queryCells } from '../../src/query/cells';
import { insertRecords, makeRecords, withApp } from '../support/helpers';

const DAY = 86_400_000;

/** The store's partition id of `ts`'s month (the rollups are partitioned by `toYYYYMM`). */
const monthOf = (ts: number) => new Date(ts).toISOString().slice(0, 7).replace('-', '');

/** Active parts per merged table in the partition of `ts`'s month. */
async function partsOf(app: FastifyInstance, ts: number): Promise<Record<string, number>> {
  const rs = await app.store.query.query({
    query: `SELECT table, count() AS parts FROM system.parts
WHERE database = currentDatabase() AND active AND table IN {tables:Array(String)} AND partition_id = {partition:String}
GROUP BY table`,
    query_params: { tables: COMPACTED_TABLES, partition: monthOf(ts) },
    format: 'JSONEachRow',
  });
  return Object.fromEntries((await rs.json<{ table: string; parts: number }>()).map((r) => [r.table, Number(r.parts)]));
}

/** The client sample's rows of `ts`'s month, every column, in one order. */
async function sampleRowsOf(app: FastifyInstance, ts: number): Promise<string> {
  const rs = await app.store.query.query({
    query: `SELECT * FROM ${CLIENT_SAMPLE_TABLE} WHERE _partition_id = {partition:String} ORDER BY ALL`,
    query_params: { partition: monthOf(ts) },
    format: 'JSONCompactEachRow',
  });
  return rs.text();
}

/** Every site's cells of one day, by stack and mode, from the rollup. */
async function cellsOf(app: FastifyInstance, day: number) {
  const answer = await queryCells(
    app.store.query,
    {
      table: 'rollup',
      filters: { from: day, to: day + DAY, site: null, clientCap: 5 },
      dimensions: ['stack', 'mode'],
      metrics: 'handshake',
      limit: 100,
    },
    1,
  );
  expect(answer.table).toBe('rollup');
  return answer.cells;
}

describe('closed months of the rollups and the client sample', () => {
  it('are merged into one part each, and every figure read from them stays the same', async () => {
    await withApp({ COMPACT_CLOSED_MONTHS: 'false' }, async ({ app }) => {
      const now = Date.now();
      // Noon of the 10th, two months back: closed whatever today's date. Two inserts: two parts per rollup.
      const month = new Date(now);
      const old = Date.UTC(month.getUTCFullYear(), month.getUTCMonth() - 2, 10, 12);
      const oldDay = Math.floor(old / DAY) * DAY;
      await insertRecords(app, makeRecords(30, { ts: old }));
      await insertRecords(app, makeRecords(30, { ts: old + 60_000, protocol: 'h3' }));
      // The month still open gets two parts as well.
      await insertRecords(app, makeRecords(30));
      await insertRecords(app, makeRecords(30));

      const before = await cellsOf(app, oldDay);
      expect(before.reduce((n, c) => n + (c.records ?? 0), 0)).toBe(60);
      const sampleRows = await sampleRowsOf(app, old);
      const oldParts = await partsOf(app, old);
      expect(oldParts.handshakes_cuts).toBe(2);
      expect(oldParts.handshakes_per_hour).toBe(2);
      // client-token-0000 hashes into the sample's share: each insert wrote a part of the client sample too.
      expect(oldParts[CLIENT_SAMPLE_TABLE]).toBe(2);
      const openParts = await partsOf(app, now);

      const due = await closedPartitionsToMerge(app.store.query, now);
      expect(due.length).toBeGreaterThan(0);
      // Only the closed month: every partition listed is the old one.
      expect(new Set(due.map((p) => p.partition)).size).toBe(1);
      expect(Object.fromEntries(due.map((p) => [p.table, p.parts]))).toEqual(
        Object.fromEntries(Object.entries(oldParts).filter(([, n]) => n > 1)),
      );

      expect(await compactClosedMonths(app.store.query, now)).toEqual(due);
      const merged = await partsOf(app, old);
      for (const table of Object.keys(oldParts)) expect(merged[table], table).toBe(1);
      expect(await partsOf(app, now)).toEqual(openParts);
      expect(await cellsOf(app, oldDay)).toEqual(before);
      expect(sampleRows.split('\n').length).toBeGreaterThan(2);
      expect(await sampleRowsOf(app, old)).toBe(sampleRows);

      // Merged once: nothing more to do until a row reaches that month again.
      expect(await compactClosedMonths(app.store.query, now)).toEqual([]);
      await insertRecords(app, makeRecords(5, { ts: old + 120_000 }));
      expect((await closedPartitionsToMerge(app.store.query, now)).map((p) => p.table)).toContain('handshakes_cuts');
    });
  });

  it('a month whose last rows are younger than what ingest still accepts is left open', async () => {
    await withApp({ COMPACT_CLOSED_MONTHS: 'false' }, async ({ app }) => {
      const now = Date.now();
      await insertRecords(app, makeRecords(10, { ts: now - DAY }));
      await insertRecords(app, makeRecords(10, { ts: now - DAY }));
      // Asked as if it were a day later: the month of those rows has not ended, or ended less than 49 h before.
      const later = (await closedPartitionsToMerge(app.store.query, now + DAY)).filter(
        (p) => p.partition === monthOf(now - DAY),
      );
      expect(later).toEqual([]);
      // Three days after that month's end it is closed.
      const endOfMonth = Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth() + 1, 1);
      const closed = await closedPartitionsToMerge(app.store.query, endOfMonth + 3 * DAY);
      expect(closed.map((p) => p.partition)).toContain(monthOf(now - DAY));
    });
  });
});
