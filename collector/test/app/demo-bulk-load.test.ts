/**
 * The demo's records in bulk (src/demo/bulk-load.ts: `pnpm demo`'s first run and the benches' stores) fill the
 * raw table and every rollup with what the views would have written for the same records, and a stopped load
 * leaves nothing half-counted behind.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDemoData } from '../../src/demo/bulk-load';
import { generateDemoData, type DemoOptions } from '../../src/demo/generate';
import { openStore, type Store } from '../../src/platform/store/clients';
import { loadMigrations, viewsInForce } from '../../src/platform/store/migrate';
import { removeDir } from '../support/helpers';
import { freshStoreDir } from '../support/store-template';

const DEMO = {
  records: 3_000,
  days: 5,
  end: Date.UTC(2026, 10, 20, 7),
  seed: 9,
  visitRecords: 4,
} satisfies DemoOptions;
// One embedded store per process: the records through the views first, then, the tables emptied, in bulk.
const dir = freshStoreDir();
let store: Store;
beforeAll(() => {
  store = openStore({ dataDir: dir, clickhouse: null });
});
afterAll(async () => {
  await store?.close();
  removeDir(dir);
});

const rows = async (query: string) =>
  (await store.query.query({ query, format: 'JSONEachRow' })).json<Record<string, unknown>>();

/** A table's rows merged per group as the queries merge them: sums, histograms, distinct clients and sites counted. */
async function contents(table: string) {
  const columns = await rows(
    `SELECT name, type FROM system.columns WHERE database = currentDatabase() AND table = '${table}' ORDER BY position`,
  );
  const type = (c: Record<string, unknown>) => String(c.type);
  const keys = columns.filter((c) => !type(c).includes('AggregateFunction')).map((c) => c.name);
  const merged = columns.flatMap((c) =>
    type(c).startsWith('SimpleAggregateFunction')
      ? [`${type(c).includes('sumMap') ? 'sumMap' : 'sum'}(${c.name}) AS m_${c.name}`]
      : type(c).startsWith('AggregateFunction(uniqUpTo(99)')
        ? [`uniqUpToMerge(99)(${c.name}) AS m_${c.name}`]
        : [],
  );
  expect(merged.length + keys.length, `${table}: every column compared`).toBe(columns.length);
  // The what-if's client sample holds raw rows: every column of them is a key, compared as it is.
  return rows(
    `SELECT ${[...keys, ...merged].join(', ')} FROM ${table} GROUP BY ${keys.join(', ')} ORDER BY ${keys.join(', ')}`,
  );
}

/** The raw rows, without the columns the generator draws at random (the batch id of a one-record visit). */
const rawRows = () =>
  rows('SELECT * EXCEPT (batchId) FROM handshakes ORDER BY ts, clientToken, site, tls, connect, ttfb, dns, tcp');

describe('the demo records in bulk', () => {
  it('fill the raw table and every rollup with what the views write for the same records', async () => {
    await generateDemoData(store.ingest, DEMO);
    const tables = ['handshakes', ...viewsInForce().map((v) => v.target)];
    const expected = { raw: await rawRows(), rollups: new Map<string, unknown>() };
    for (const t of tables.slice(1)) {
      const want = await contents(t);
      expect(want.length, t).toBeGreaterThan(0);
      expected.rollups.set(t, want);
    }
    for (const t of tables) await store.ingest.command({ query: `TRUNCATE TABLE ${t}` });

    // Leftovers of a load stopped before its copies were attached: dropped, not counted.
    await store.ingest.command({ query: 'CREATE TABLE handshakes_bulk_load AS handshakes' });
    await generateDemoData(store.ingest, { ...DEMO, seed: 10, table: 'handshakes_bulk_load' });
    await store.ingest.command({ query: 'CREATE TABLE handshakes_cuts_bulk_load AS handshakes_cuts' });
    const shares: number[] = [];
    const load = await loadDemoData(store.ingest, { ...DEMO, onProgress: (s) => shares.push(s) });
    expect(load).toMatchObject({ records: DEMO.records, bulk: true });
    expect(shares.at(-1)).toBe(1);
    expect(shares).toEqual([...shares].sort((a, b) => a - b));

    const raw = await rawRows();
    expect(raw.length).toBe(DEMO.records);
    expect(raw).toEqual(expected.raw);
    for (const t of tables.slice(1)) expect(await contents(t), t).toEqual(expected.rollups.get(t));
    expect(await rows("SELECT name FROM system.tables WHERE name LIKE '%bulk_load%'")).toEqual([]);
  });

  it('go through the views in a store that has not applied every migration (its views may not be those in force)', async () => {
    const last = loadMigrations().at(-1)!.version;
    await store.ingest.command({
      query: `ALTER TABLE schema_migrations DELETE WHERE version = ${last}`,
      clickhouse_settings: { mutations_sync: '1' },
    });
    const count = async (query: string) => Number((await rows(query))[0]!.n);
    const raw = await count('SELECT count() AS n FROM handshakes');
    const rolledUp = await count('SELECT sum(records) AS n FROM handshakes_per_hour');
    const load = await loadDemoData(store.ingest, { ...DEMO, records: 1_000, seed: 11 });
    expect(load).toMatchObject({ records: 1_000, bulk: false });
    expect(await count('SELECT count() AS n FROM handshakes')).toBe(raw + 1_000);
    // Through the views: the hourly grain counts the new records too.
    expect(await count('SELECT sum(records) AS n FROM handshakes_per_hour')).toBeGreaterThan(rolledUp);
  });
});
