/**
 * A time series' closed buckets kept once (query/closed-buckets.ts) on a real embedded store with generated
 * data: the answer from kept buckets is the store's answer over the whole range, cell for cell, for every
 * dimension, filters, a site's scope and the k-sites rule; a series asked again, or an hour later, reads only
 * the buckets it lacks and the open ones; rows that reach a closed hour late, through the spool, show at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIMENSION_NAMES } from '@tlsrum/shared/query';
import type { HandshakeRecord } from '@tlsrum/shared';
import { generateDemoData } from '../../src/demo/generate';
import { MAX_CELLS, queryCells, type Bucket, type CellQuery, type ValueFilters } from '../../src/query/cells';
import { BUCKET_MS, closedUntil, ClosedBuckets, querySeriesCells } from '../../src/query/closed-buckets';
import type { Dimension } from '../../src/query/dimensions';
import { makeBatch, makeRecords, metricValue, removeDir, startApp, type TestApp } from '../support/helpers';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const MIN_CLIENTS = 5;
let t: TestApp;
/** The data end at the start of the current hour; the tests' clock is an hour into the next one. */
const end = Math.floor(Date.now() / HOUR) * HOUR;
const now = end + HOUR + 60_000;

beforeAll(async () => {
  t = await startApp({
    CLOSED_BUCKET_CACHE_BYTES: String(64 * 1024 * 1024),
    MIN_CLIENTS_PER_CELL: String(MIN_CLIENTS),
  });
  await generateDemoData(t.app.store.ingest, { records: 40_000, days: 6, end, seed: 11 });
}, 120_000);

afterAll(async () => {
  await t?.close();
  if (t) removeDir(t.dataDir);
});

function series(
  bucket: Bucket,
  from: number,
  to: number,
  dimensions: Dimension[] = [],
  more: ValueFilters & { site?: string; minSites?: number } = {},
): CellQuery & { bucket: Bucket } {
  const { site = null, minSites, ...filters } = more;
  return {
    table: 'rollup',
    filters: { from, to, site, clientCap: t.app.config.clientRecordsPerCellDay, minSites, ...filters },
    dimensions,
    bucket,
    metrics: 'handshake',
    limit: MAX_CELLS.timeseries,
  };
}

const whole = (q: CellQuery) => queryCells(t.app.store.query, q, MIN_CLIENTS);

describe('closed buckets kept once', () => {
  it('answer as the store answers the whole range, for every dimension, filters, a site and the k-sites rule', async () => {
    const from = end - 6 * DAY;
    const days = Math.ceil(from / DAY) * DAY;
    const questions = [
      ...DIMENSION_NAMES.map((d) => series('hour', from, end, [d])),
      series('hour', from, end),
      series('hour', from, end, ['stack'], { country: 'DE' }),
      series('hour', from, end, ['mode'], { browser: 'chrome' }),
      series('hour', from, end, ['stack'], { site: 'shop.example.com' }),
      series('hour', from, end, ['stack'], { minSites: 2 }),
      series('hour', from, end, ['group'], { pq: 'hybrid' }),
      // Day buckets over whole days (a range not starting on a day is answered whole).
      series('day', days, days + 5 * DAY, ['stack']),
      series('day', days, days + 5 * DAY, ['country'], { source: 'rum' }),
      series('day', from, end, ['stack']),
    ];
    let cells = 0;
    // One memory for every question besides each question's own: no question is answered another's buckets.
    const shared = new ClosedBuckets(64 * 1024 * 1024, () => now);
    for (const q of [...questions, ...questions])
      expect(await querySeriesCells(t.app.store.query, q, MIN_CLIENTS, shared, now)).toEqual(await whole(q));
    for (const q of questions) {
      const kept = new ClosedBuckets(64 * 1024 * 1024, () => now);
      const want = await whole(q);
      const first = await querySeriesCells(t.app.store.query, q, MIN_CLIENTS, kept, now);
      const again = await querySeriesCells(t.app.store.query, q, MIN_CLIENTS, kept, now);
      const label = `${q.bucket} ${q.dimensions.join(',')} ${JSON.stringify(q.filters)}`;
      expect(first, label).toEqual(want);
      expect(again, label).toEqual(want);
      // Only the rollups' answers are kept: where the raw table answers, nothing is.
      const size = BUCKET_MS[q.bucket];
      if (want.table === 'rollup' && q.filters.from % size === 0)
        expect(kept.counts.kept, label).toBe((closedUntil(now, q.bucket) - q.filters.from) / size);
      else expect(kept.size, label).toBe(0);
      cells += want.cells.length;
    }
    // The questions are not empty ones: thousands of cells were compared.
    expect(cells).toBeGreaterThan(5000);
  });

  it('a series asked again, or an hour later, reads only the closed buckets it lacks and the open ones', async () => {
    const kept = new ClosedBuckets(64 * 1024 * 1024, () => now);
    const q = series('hour', end - 6 * DAY, end, ['stack']);
    const closed = (closedUntil(now, 'hour') - q.filters.from) / HOUR;
    await querySeriesCells(t.app.store.query, q, MIN_CLIENTS, kept, now);
    expect(kept.counts).toEqual({ kept: 0, read: closed });
    await querySeriesCells(t.app.store.query, q, MIN_CLIENTS, kept, now);
    expect(kept.counts).toEqual({ kept: closed, read: closed });
    // An hour later, the range an hour on: one more hour is closed, and it is the only one read (the range's
    // first hour is gone from it).
    const later = series('hour', q.filters.from + HOUR, q.filters.to + HOUR, ['stack']);
    const answer = await querySeriesCells(t.app.store.query, later, MIN_CLIENTS, kept, now + HOUR);
    expect(kept.counts).toEqual({ kept: closed + closed - 1, read: closed + 1 });
    expect(answer).toEqual(await whole(later));
  });

  it('a bucket is worked out again after an hour, and memory stays within its budget', async () => {
    let clock = now;
    const q = series('hour', end - 6 * DAY, end, ['country']);
    const big = new ClosedBuckets(1024 * 1024 * 1024, () => clock);
    await querySeriesCells(t.app.store.query, q, MIN_CLIENTS, big, clock);
    const needed = big.heldBytes;
    clock += HOUR;
    await querySeriesCells(t.app.store.query, q, MIN_CLIENTS, big, now);
    expect(big.counts.read).toBe(2 * big.size);
    // Half the memory the series' buckets need: the oldest go, the answer is the same.
    const small = new ClosedBuckets(Math.floor(needed / 2), () => now);
    await querySeriesCells(t.app.store.query, q, MIN_CLIENTS, small, now);
    expect(small.heldBytes).toBeLessThanOrEqual(needed / 2);
    expect(small.size).toBeGreaterThan(0);
    expect(await querySeriesCells(t.app.store.query, q, MIN_CLIENTS, small, now)).toEqual(await whole(q));
  });

  it('rows reaching a closed hour late, through the spool, show in the next answer of /v1/timeseries', async () => {
    const from = end - 6 * DAY;
    const url = `/v1/timeseries?interval=hour&from=${from}&to=${end}`;
    const ask = async () => {
      const res = await t.app.inject({ url });
      expect(res.statusCode).toBe(200);
      return res.json<{ cells: { t: number; records?: number }[] }>().cells;
    };
    const before = await ask();
    const again = await ask();
    expect(again).toEqual(before);
    const metrics = (await t.app.inject({ url: '/metrics' })).body;
    expect(metricValue(metrics, 'tlsrum_closed_buckets_total{result="kept"}')).toBeGreaterThan(0);
    // Records of an hour closed long ago, accepted then and stored only now (a spool drained after an outage):
    // 50 from 10 clients (5 each: within the per-client cap).
    const hour = end - 4 * DAY;
    const late: HandshakeRecord[] = makeRecords(50, {}, 10).map((r, i) => ({ ...r, ts: hour + 60_000 + i * 1000 }));
    const batch = { ...makeBatch(late), sentAt: hour + 120_000 };
    await t.app.ingest.submit(batch, { country: 'DE', receivedAt: hour + 120_000, isRegisteredSite: () => false });
    await t.app.ingest.flush();
    const after = await ask();
    const recordsAt = (cells: typeof before) => cells.find((c) => c.t === hour)?.records;
    expect(recordsAt(before)).toBeGreaterThan(0);
    expect(recordsAt(after)).toBe(recordsAt(before)! + 50);
  });
});
