/**
 * The per-client cap (query/counted.ts) on a real embedded store. Read time, for cells shorter than a
 * day (`cappedPerCell`): at most K rows per client token, cell and UTC day — whether the rows are read as
 * one capped subquery or as UNION ALL branches of whole UTC days (one day or several each), and for a range
 * that starts or ends mid-day. Whole days (`countedRows`): the rows ingest did not mark, through the ingest
 * route — the raw table's daily cells and the rollup count the same.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HandshakeRow } from '../../src/ingest/columns';
import type { HandshakeRecord } from '@tlsrum/shared';
import { cappedPerCell, countedRows, dayBranches } from '../../src/query/counted';
import { migrate } from '../../src/platform/store/migrate';
import { generate, insertRows } from '../support/generate';
import {
  makeBatch,
  makeRecords,
  openStore,
  postBatch,
  removeDir,
  storedRows,
  freshStoreDir,
  withApp,
} from '../support/helpers';

const DAY = 86_400_000;
const HOUR = 3_600_000;
const K = 5;
// A UTC midnight well inside the store's accepted past.
const D = Math.floor(Date.now() / DAY) * DAY - 10 * DAY;

/** `n` rows of one token at `ts`, in the h2 or h3 cell (cell key: protocol). */
function rows(token: string, ts: number, n: number, protocol: 'h2' | 'h3' = 'h2'): HandshakeRow[] {
  return generate({
    site: 'shop.example',
    from: ts,
    to: ts + 1,
    records: n,
    clients: 1,
    rtt: 40,
    fullTls: 80,
    resumedTls: 40,
    resumedShare: 0,
    tls13Share: 1,
    h3Share: protocol === 'h3' ? 1 : 0,
    seed: 1,
  }).map((r) => ({ ...r, clientToken: token }));
}

describe('the per-client cap per UTC day', () => {
  const dir = freshStoreDir();
  const store = openStore({ dataDir: dir, clickhouse: null });

  beforeAll(async () => {
    await migrate(store.ingest);
    await insertRows(store.ingest, [
      // Either side of a midnight: 4 + 4 in one cell, under K each day.
      ...rows('night-owl', D + 23 * HOUR, 4),
      ...rows('night-owl', D + DAY + HOUR, 4),
      // 9 in one cell and 2 in another on one day: 5 + 2.
      ...rows('flooder', D + 12 * HOUR, 9),
      ...rows('flooder', D + 13 * HOUR, 2, 'h3'),
      // 7 on each of three days, in one cell: 5 a day.
      ...rows('steady', D + 2 * HOUR, 7),
      ...rows('steady', D + DAY + 2 * HOUR, 7),
      ...rows('steady', D + 2 * DAY + 2 * HOUR, 7),
      // One row the range below starts after (D 00:30): not counted at all.
      ...rows('early', D + HOUR / 2, 1),
    ]);
  });
  afterAll(async () => {
    await store.close();
    removeDir(dir);
  });

  async function perToken(from: number, to: number, range: boolean): Promise<Record<string, number>> {
    const where = 'ts >= fromUnixTimestamp64Milli({from:Int64}) AND ts < fromUnixTimestamp64Milli({to:Int64})';
    const sql = `SELECT clientToken, toUInt32(count()) AS n FROM ${cappedPerCell(where, ['protocol'], K, 'clientToken, protocol', range ? { from, to } : undefined)} GROUP BY clientToken ORDER BY clientToken`;
    const out = await (
      await store.query.query({ query: sql, query_params: { from, to }, format: 'JSONEachRow' })
    ).json<{ clientToken: string; n: number }>();
    return Object.fromEntries(out.map((r) => [r.clientToken, Number(r.n)]));
  }

  const expected = { flooder: 7, 'night-owl': 8, steady: 15 };

  it('counts K per token, cell and UTC day, read as one subquery or as branches of whole days', async () => {
    // Starts and ends mid-day: 01:00 on D (after the early row) to 23:00 on D + 2.
    const from = D + HOUR;
    const to = D + 2 * DAY + 23 * HOUR;
    expect(await perToken(from, to, false)).toEqual(expected);
    expect(await perToken(from, to, true)).toEqual(expected);
  });

  it('counts the same in branches of one day each (the day then out of the key)', async () => {
    // Two days, 01:00 on D to 23:00 on D + 1: one-day branches on any machine (at least 2 branches).
    const from = D + HOUR;
    const to = D + DAY + 23 * HOUR;
    expect(dayBranches(from, to).days).toBe(1);
    const twoDays = { flooder: 7, 'night-owl': 8, steady: 10 };
    expect(await perToken(from, to, true)).toEqual(twoDays);
    expect(await perToken(from, to, false)).toEqual(twoDays);
  });

  it('counts the same in branches of several days (a long range)', async () => {
    const from = D - 60 * DAY + HOUR;
    const to = D + 5 * DAY;
    expect(dayBranches(from, to).days).toBeGreaterThan(1);
    // This range holds the early row too.
    expect(await perToken(from, to, true)).toEqual({ ...expected, early: 1 });
    expect(await perToken(from, to, false)).toEqual({ ...expected, early: 1 });
  });

  it('splits a range into runs of whole UTC days, at most the given number, covering it', () => {
    for (const branches of [2, 3, 4, 32])
      for (const [from, to] of [
        [D + HOUR, D + 2 * DAY + 23 * HOUR],
        [D, D + DAY],
        [D + HOUR, D + 2 * HOUR],
        [D - 399 * DAY + 7, D],
        [D - 31 * DAY, D + 1],
      ] as const) {
        const { days, bounds } = dayBranches(from, to, branches);
        expect(bounds.length).toBeGreaterThan(0);
        expect(bounds.length).toBeLessThanOrEqual(branches);
        expect(bounds[0]![0] % DAY).toBe(0);
        expect(bounds[0]![0]).toBeLessThanOrEqual(from);
        expect(bounds.at(-1)![1]).toBeGreaterThanOrEqual(to);
        bounds.forEach(([lo, hi], i) => {
          expect(hi - lo).toBe(days * DAY);
          if (i > 0) expect(lo).toBe(bounds[i - 1]![1]);
        });
      }
    expect(dayBranches(D + HOUR, D + 2 * DAY + 23 * HOUR, 3)).toEqual({
      days: 1,
      bounds: [0, 1, 2].map((i) => [D + i * DAY, D + (i + 1) * DAY]),
    });
    // The default: one branch per day for a short range, at most one per core beyond.
    expect(dayBranches(D + HOUR, D + 2 * DAY + 23 * HOUR).days).toBe(1);
    expect(dayBranches(D - 30 * DAY, D).bounds.length).toBeLessThanOrEqual(32);
    expect(dayBranches(D + HOUR, D + 2 * DAY + 23 * HOUR, 2)).toEqual({
      days: 2,
      bounds: [0, 2].map((i) => [D + i * DAY, D + (i + 2) * DAY]),
    });
  });
});

const record = (token: string, ts: number, o: Partial<HandshakeRecord> = {}): HandshakeRecord => ({
  ...makeRecords(1)[0]!,
  clientToken: token,
  ts,
  ...o,
});

describe('the cap through the ingest route (real embedded store)', () => {
  it('stores every record, marks those beyond K of a token, day and site, and the raw table and the rollup count the same', async () => {
    await withApp(
      { MIN_CLIENTS_PER_CELL: '1', CLIENT_RECORDS_PER_CELL_DAY: String(K), TOKENS_PER_ADDRESS: '0' },
      async (t) => {
        const now = Date.now();
        const batch = (token: string, n: number, o: Partial<HandshakeRecord>) =>
          Array.from({ length: n }, (_, i) => record(token, now - 1000 - i, o));
        const records = [
          ...batch('flooder-token', 9, { protocol: 'h2', transport: 'tcp' }),
          ...batch('flooder-token', 2, { protocol: 'http/1.1', transport: 'tcp' }),
          ...batch('steady-token', 4, { protocol: 'h2', transport: 'tcp' }),
        ];
        // Two requests for the flooder's h2 records: the count runs across requests.
        for (const part of [records.slice(0, 4), records.slice(4)]) {
          const res = await postBatch(t.app, makeBatch(part));
          expect(res.statusCode, res.body).toBe(202);
        }
        await t.app.ingest.flush();

        const stored = await storedRows(t.app);
        expect(stored).toHaveLength(15);
        // Beyond the flooder's first K on this site and day, whatever cell they claim.
        expect(
          stored
            .filter((r) => Number(r.capped) === 1)
            .map((r) => `${r.clientToken} ${r.protocol}`)
            .sort(),
        ).toEqual([
          ...Array.from({ length: 4 }, () => 'flooder-token h2'),
          ...Array.from({ length: 2 }, () => 'flooder-token http/1.1'),
        ]);

        const perToken = await (
          await t.app.store.query.query({
            query: `SELECT clientToken, toUInt32(count()) AS n FROM ${countedRows('1', 'clientToken')} GROUP BY clientToken ORDER BY clientToken`,
            format: 'JSONEachRow',
          })
        ).json<{ clientToken: string; n: number }>();
        expect(perToken).toEqual([
          { clientToken: 'flooder-token', n: K },
          { clientToken: 'steady-token', n: 4 },
        ]);
        for (const table of ['raw', 'rollup']) {
          const res = await t.app.inject({ method: 'GET', url: `/v1/compare?dimensions=protocol&table=${table}` });
          expect(res.statusCode).toBe(200);
          const cells = res.json<{ cells: Array<{ key: { protocol: string }; records: number }> }>().cells;
          expect(Object.fromEntries(cells.map((c) => [c.key.protocol, c.records])), table).toEqual({ h2: K + 4 });
        }
        // Hourly cells cap per their own cells at read time (the marks ignored): K of each protocol.
        const hourly = await t.app.inject({
          method: 'GET',
          url: `/v1/timeseries?interval=hour&dimensions=protocol&from=${now - 3_600_000}&to=${now + 60_000}&table=raw`,
        });
        expect(hourly.statusCode).toBe(200);
        const byProtocol: Record<string, number> = {};
        for (const c of hourly.json<{ cells: Array<{ key: { protocol: string }; records: number }> }>().cells)
          byProtocol[c.key.protocol] = (byProtocol[c.key.protocol] ?? 0) + c.records;
        expect(byProtocol).toEqual({ h2: K + 4, 'http/1.1': 2 });
      },
    );
  });
});
