import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemoData } from '../../src/demo/generate';
import {
  applyRetention,
  backfill,
  CLIENT_SAMPLE_RETENTION,
  loadMigrations,
  migrate,
  rollupViewsInForce,
  splitStatements,
} from '../../src/platform/store/migrate';
import { CLIENT_SAMPLE_SHARE, CLIENT_SAMPLE_TABLE } from '../../src/whatif/query';
import { BUCKETS, BUCKET_STATE_TYPE } from '../../src/query/histogram';
import { CUTS, hourlyCutNumber } from '../../src/query/sources';
import { DIMENSION_SQL } from '../../src/query/dimensions';
import { ROLLUP_CLIENT_HASH, ROLLUP_CLIENTS, ROLLUP_CLIENTS_CAP } from '../../src/query/clients';
import type { Store } from '../../src/platform/store/clients';
import {
  countRows,
  keptPhases,
  makeBatch,
  makeRecords,
  openStore,
  postBatch,
  removeDir,
  startApp,
  tempDir,
  viewsInForce,
  withApp,
} from '../support/helpers';

/** Per cut of a rollup: its records and the values its tls and ttfb histograms (sparse count maps) hold. */
async function rollupTotals(store: Store, table = 'handshakes_cuts') {
  const values = (p: string) => `arraySum(mapValues(sumMap(${p}_hist)))`;
  const rs = await store.query.query({
    query: `SELECT cut, sum(records) AS records, ${values('tls')} AS tls, ${values('ttfb')} AS ttfb
            FROM ${table} GROUP BY cut ORDER BY cut`,
    format: 'JSONEachRow',
  });
  return (await rs.json<Record<string, number>>()).map((r) => ({
    cut: Number(r.cut),
    records: Number(r.records),
    tls: Number(r.tls),
    ttfb: Number(r.ttfb),
  }));
}

/** The cut numbers sources.ts declares for a rollup table, in order. */
const cutNumbers = (table: string) =>
  CUTS.filter((c) => c.table === table)
    .map((c) => Number(c.where!.replace('cut = ', '')))
    .sort((a, b) => a - b);

/** The raw rows the what-if's client sample keeps (migration 0026), as the what-if selects clients. */
const SAMPLED_ROWS = `clientToken != '' AND cityHash64(clientToken) / 18446744073709551616.0 <= ${CLIENT_SAMPLE_SHARE}`;

const FOLDER_RECORDS = 5_000;
/** Records added after an upgrade, which must reach the new rollup through its view. */
const ADDED_RECORDS = 1_000;
const AFTER_ADDING = FOLDER_RECORDS + ADDED_RECORDS;
/** Every cut counts every stored record once, in its records and in its phase buckets. */
const CUT_NUMBERS = cutNumbers('handshakes_cuts');
const EVERY_CUT_COUNTS_EVERY_RECORD = CUT_NUMBERS.map((cut) => ({
  cut,
  records: FOLDER_RECORDS,
  tls: FOLDER_RECORDS,
  ttfb: FOLDER_RECORDS,
}));

/** The versions a folder migrated below `version` still needs. */
const versionsFrom = (version: number) =>
  loadMigrations()
    .map((m) => m.version)
    .filter((v) => v >= version);

/** Migrates an empty store up to (not including) `version` and fills it with generated records. */
async function fillOlderFolder(store: Store, version: number): Promise<void> {
  await migrate(
    store.ingest,
    loadMigrations().filter((m) => m.version < version),
  );
  await generateDemoData(store.ingest, { records: FOLDER_RECORDS, days: 10, seed: version });
}

/** A data folder migrated up to (not including) `version`, holding generated records, for an upgrade test. */
async function upgradeFolder(version: number, test: (store: Store) => Promise<void>): Promise<void> {
  const dir = tempDir();
  const store = openStore({ dataDir: dir, clickhouse: null });
  try {
    await fillOlderFolder(store, version);
    await test(store);
  } finally {
    await store.close();
    removeDir(dir);
  }
}

/** The raw expression of each rollup column that holds one dimension's value as is, and of the hour. */
const RAW_OF: Record<string, string> = {
  ...Object.fromEntries(
    Object.values(DIMENSION_SQL).flatMap((d) =>
      d.rollup?.columns.length === 1 && d.rollup.sql === d.rollup.columns[0] ? [[d.rollup.sql, d.raw]] : [],
    ),
  ),
  hour: "toStartOfHour(ts, 'UTC')",
  site: 'site',
};

/**
 * A rollup of every site together without per-site twins counts, in each group of each of its cuts, the
 * registered sites the raw rows of that group hold (what the k-sites rule reads).
 */
const sitesCountedInEachGroup = (table: string) => async (store: Store) => {
  for (const c of CUTS.filter((x) => x.table === table)) {
    const keys = c.cut!.join(', ');
    const rs = await store.query.query({
      query: `SELECT count() AS groups, countIf(a != b) AS differ, sum(b) AS sites FROM
                (SELECT ${keys}, uniqUpToMerge(99)(sites) AS a FROM ${c.table} WHERE ${c.where} GROUP BY ${keys}) AS x
                FULL JOIN (SELECT ${c.cut!.map((k) => `${RAW_OF[k]} AS ${k}`).join(', ')}, uniqExactIf(site, site != '') AS b
                           FROM handshakes WHERE implausible = 0 AND capped = 0 GROUP BY ${keys}) AS y
                USING (${keys})`,
      format: 'JSONEachRow',
    });
    const [r] = await rs.json<{ groups: number; differ: number; sites: number }>();
    // The check can fail: groups exist and some hold registered sites.
    expect(Number(r!.groups), c.name).toBeGreaterThan(0);
    expect(Number(r!.sites), c.name).toBeGreaterThan(0);
    expect(Number(r!.differ), c.name).toBe(0);
  }
};

// Each upgrade test migrates and backfills a data folder of generated rows: tens of seconds on a 2-core machine.
describe('store', { timeout: 180_000 }, () => {
  it('applies migrations once; running them again changes nothing', async () => {
    const dir = tempDir();
    const store = openStore({ dataDir: dir, clickhouse: null });
    try {
      expect(await migrate(store.ingest)).toEqual(loadMigrations().map((m) => m.version));
      expect(await migrate(store.ingest)).toEqual([]);
      const rs = await store.query.query({
        query: 'SELECT version FROM schema_migrations FINAL ORDER BY version',
        format: 'JSONEachRow',
      });
      expect((await rs.json<{ version: number }>()).map((r) => r.version)).toEqual(
        loadMigrations().map((m) => m.version),
      );
    } finally {
      await store.close();
      removeDir(dir);
    }
  });

  it("a crash inside a migration is harmless: each migration's statements run again where it stands", async () => {
    const dir = tempDir();
    const store = openStore({ dataDir: dir, clickhouse: null });
    try {
      // On restart the migration that was not recorded runs again from its first statement, on the folder
      // as every earlier migration and any of its own statements left it.
      const all = loadMigrations();
      for (const [i, m] of all.entries()) {
        expect(await migrate(store.ingest, all.slice(0, i + 1))).toEqual([m.version]);
        for (const s of m.statements) await store.ingest.command({ query: s });
      }
      expect(await migrate(store.ingest)).toEqual([]);
    } finally {
      await store.close();
      removeDir(dir);
    }
  });

  it('a backfill fills every rollup with what its view writes; a crash halfway leaves it empty, and the next one fills it whole', async () => {
    const dir = tempDir();
    const store = openStore({ dataDir: dir, clickhouse: null });
    try {
      await migrate(store.ingest);
      await generateDemoData(store.ingest, { records: 4_000, days: 5, seed: 5 });
      const rows = async (query: string) =>
        (await store.query.query({ query, format: 'JSONEachRow' })).json<Record<string, unknown>>();
      // Every column but the distinct-client states (random bytes), merged per group as the queries merge them.
      const contents = async (table: string) => {
        const columns = await rows(
          `SELECT name, type FROM system.columns WHERE database = currentDatabase() AND table = '${table}' ORDER BY position`,
        );
        const keys = columns.filter((c) => !String(c.type).includes('AggregateFunction')).map((c) => c.name);
        const sums = columns
          .filter((c) => String(c.type).startsWith('SimpleAggregateFunction'))
          .map((c) => `${String(c.type).includes('sumMap') ? 'sumMap' : 'sum'}(${c.name}) AS s_${c.name}`);
        return rows(
          `SELECT ${[...keys, ...sums].join(', ')} FROM ${table} GROUP BY ${keys.join(', ')} ORDER BY ${keys.join(', ')}`,
        );
      };
      for (const view of rollupViewsInForce()) {
        const written = await contents(view.target);
        expect(written.length, view.target).toBeGreaterThan(0);
        // A crash after a few days went into the copy, before its partitions were attached.
        await store.ingest.command({ query: `TRUNCATE TABLE ${view.target}` });
        await store.ingest.command({ query: `CREATE TABLE ${view.target}_backfill AS ${view.target}` });
        await store.ingest.command({
          query: `INSERT INTO ${view.target}_backfill ${view.select.replace(/\bFROM handshakes\b/, 'FROM (SELECT * FROM handshakes WHERE ts < now() - INTERVAL 3 DAY)')}`,
        });
        expect(await contents(view.target)).toEqual([]);
        await backfill(store.ingest, view, true);
        expect(await contents(view.target), view.target).toEqual(written);
        expect(await rows(`EXISTS TABLE ${view.target}_backfill`)).toEqual([{ result: 0 }]);
        await backfill(store.ingest, view, true);
        expect(await contents(view.target), `${view.target}, filled once`).toEqual(written);
      }
    } finally {
      await store.close();
      removeDir(dir);
    }
  });

  it("writes every rollup's columns through its view, by name and in order, and no mix count map", async () => {
    const dir = tempDir();
    const store = openStore({ dataDir: dir, clickhouse: null });
    const json = async <T>(query: string) => (await store.query.query({ query, format: 'JSONEachRow' })).json<T>();
    try {
      await migrate(store.ingest);
      const views = new Map(viewsInForce().map((v) => [v.name, v]));
      const live = await json<{ name: string }>(
        "SELECT name FROM system.tables WHERE database = currentDatabase() AND engine = 'MaterializedView' ORDER BY name",
      );
      expect(live.length).toBeGreaterThanOrEqual(7);
      for (const { name } of live) {
        const view = views.get(name)!;
        const table = await json<{ name: string }>(
          `SELECT name FROM system.columns WHERE database = currentDatabase() AND table = '${view.target}' ORDER BY position`,
        );
        // The backfill inserts the view's SELECT by position: its columns must be the table's, in order.
        const select = await json<{ name: string }>(`DESCRIBE (${view.select})`);
        expect(
          select.map((c) => c.name),
          view.name,
        ).toEqual(table.map((c) => c.name));
      }
      // The mixes come from each cut's key columns (query/cells.ts, jointMixCells): no view fills a mix map.
      await generateDemoData(store.ingest, { records: 2_000, days: 2, seed: 19 });
      const maps = await json<{ table: string; name: string }>(
        "SELECT table, name FROM system.columns WHERE database = currentDatabase() AND name LIKE 'mix\\_%' AND table NOT IN (SELECT name FROM system.tables WHERE engine = 'MaterializedView')",
      );
      expect(maps.length).toBeGreaterThan(0);
      for (const { table, name } of maps)
        expect(await json(`SELECT count() AS n FROM ${table} WHERE notEmpty(${name})`), `${table}.${name}`).toEqual([
          { n: 0 },
        ]);
    } finally {
      await store.close();
      removeDir(dir);
    }
  });

  it("stores the raw records with ZSTD and every rollup's counts and histograms with T64 before ZSTD, its mixes with ZSTD, the older rollups' included", async () => {
    const dir = tempDir();
    const store = openStore({ dataDir: dir, clickhouse: null });
    try {
      await migrate(store.ingest);
      // The rollups: every view's target but the what-if's client sample, which holds raw rows (below).
      const targets = [...new Set(rollupViewsInForce().map((v) => v.target))];
      const columns = await (
        await store.query.query({
          query: `SELECT table, name, compression_codec AS codec FROM system.columns
                  WHERE database = currentDatabase() AND has({targets:Array(String)}, table)
                    AND (name IN ('records', 'evidenced', 'inferred') OR name LIKE 'mix\\_%'
                         OR name LIKE '%\\_hist')`,
          query_params: { targets },
          format: 'JSONEachRow',
        })
      ).json<{ table: string; name: string; codec: string }>();
      // Three counts and each phase's states in every rollup (the five, or the handshake's three where its cuts say
      // so), and the four mixes where it keeps them.
      for (const target of targets)
        expect(columns.filter((c) => c.table === target).length, target).toBeGreaterThanOrEqual(
          3 + keptPhases(target).length,
        );
      // Integers only (counts, bucket numbers) take T64 first; the mixes' keys are text.
      for (const c of columns)
        expect(c.codec, `${c.table}.${c.name}`).toBe(
          c.name.startsWith('mix_') ? 'CODEC(ZSTD(3))' : 'CODEC(T64, ZSTD(3))',
        );
      // The raw table: every column but the sort key's and the batch id (random bytes).
      const raw = await (
        await store.query.query({
          query: `SELECT name, compression_codec AS codec FROM system.columns
                  WHERE database = currentDatabase() AND table = 'handshakes'
                    AND name NOT IN ('site', 'country', 'batchId')`,
          format: 'JSONEachRow',
        })
      ).json<{ name: string; codec: string }>();
      expect(raw.length).toBeGreaterThan(30);
      for (const c of raw) expect(c.codec, `handshakes.${c.name}`).toMatch(/ZSTD\(1\)\)$/);
      // The client sample's copy of raw rows: every column but its sort key's, as the raw table's.
      const sample = await (
        await store.query.query({
          query: `SELECT name, compression_codec AS codec FROM system.columns
                  WHERE database = currentDatabase() AND table = {table:String}
                    AND name NOT IN ('site', 'clientSample')`,
          query_params: { table: CLIENT_SAMPLE_TABLE },
          format: 'JSONEachRow',
        })
      ).json<{ name: string; codec: string }>();
      expect(sample.length).toBeGreaterThan(20);
      for (const c of sample) expect(c.codec, `${CLIENT_SAMPLE_TABLE}.${c.name}`).toBe('CODEC(ZSTD(1))');
    } finally {
      await store.close();
      removeDir(dir);
    }
  });

  it("fills the what-if's client sample (0026) from a data folder that predates it: every record of a sampled client and no other; new records reach it; retention applies to it", async () => {
    await upgradeFolder(26, async (store) => {
      expect(await migrate(store.ingest)).toEqual(versionsFrom(26));
      const rows = async (table: string) =>
        (
          await (
            await store.query.query({
              query: `SELECT clientToken, toUnixTimestamp64Milli(ts) AS ts, country, dns, tls, capped FROM ${table}
                      WHERE ${table === 'handshakes' ? SAMPLED_ROWS : 'true'} ORDER BY clientToken, ts, dns, tls`,
              format: 'JSONEachRow',
            })
          ).json<Record<string, unknown>>()
        ).map((r) => JSON.stringify(r));
      const sampled = await rows('handshakes');
      // About a sixteenth of the clients, all of their records.
      expect(sampled.length).toBeGreaterThan(FOLDER_RECORDS / 40);
      expect(sampled.length).toBeLessThan(FOLDER_RECORDS / 8);
      expect(await rows(CLIENT_SAMPLE_TABLE)).toEqual(sampled);
      await generateDemoData(store.ingest, { records: ADDED_RECORDS, days: 1, seed: 26 });
      const after = await rows('handshakes');
      expect(after.length).toBeGreaterThan(sampled.length);
      expect(await rows(CLIENT_SAMPLE_TABLE)).toEqual(after);
      expect(await applyRetention(store.ingest, 30, null, CLIENT_SAMPLE_RETENTION)).toBe(true);
      const ddl = await (
        await store.query.query({
          query: 'SELECT create_table_query AS q FROM system.tables WHERE name = {table:String}',
          query_params: { table: CLIENT_SAMPLE_TABLE },
          format: 'JSONEachRow',
        })
      ).json<{ q: string }>();
      expect(ddl[0]!.q).toContain('TTL toDateTime(ts) + toIntervalDay(30)');
    });
  });

  it('fills the daily rollup from the rows of a data folder that predates it, and drops the hourly one', async () => {
    await upgradeFolder(5, async (store) => {
      expect(await migrate(store.ingest)).toEqual(versionsFrom(5));
      expect(await rollupTotals(store)).toEqual(EVERY_CUT_COUNTS_EVERY_RECORD);
      const tables = await store.query.query({
        query: "SELECT name FROM system.tables WHERE database = currentDatabase() AND name LIKE 'handshakes_hourly%'",
        format: 'JSONEachRow',
      });
      expect(await tables.json()).toEqual([]);
    });
  });

  // One data folder from before the first of these rollups (0009), upgraded to today: every later migration
  // that adds a rollup fills it from the folder's rows, as it would fill it on a folder just one version older.
  describe('a data folder that predates the crypto rollup (0009), upgraded to today', () => {
    let store: Store;
    let dir: string;
    let applied: number[];
    beforeAll(async () => {
      dir = tempDir();
      store = openStore({ dataDir: dir, clickhouse: null });
      await fillOlderFolder(store, 9);
      applied = await migrate(store.ingest);
    }, 180_000);
    afterAll(async () => {
      await store?.close();
      if (dir) removeDir(dir);
    });

    const json = async (query: string) =>
      (await (await store.query.query({ query, format: 'JSONEachRow' })).json<Record<string, number>>()).map((r) =>
        Object.fromEntries(Object.entries(r).map(([k, v]) => [k, Number(v)])),
      );
    /** The rollups of sparse cuts these migrations add: what, table, cuts, and whether groups count sites. */
    const SPARSE_CUTS = [
      { what: 'the crypto rollup by one crypto column at a time (0015)', table: 'handshakes_crypto_cuts', count: 8 },
      { what: 'the country cuts (0016)', table: 'handshakes_country_cuts', count: 6 },
      { what: 'the evidence cuts (0017)', table: 'handshakes_evidence_cuts', count: 4 },
      { what: 'the country and key-exchange group cuts (0018)', table: 'handshakes_country_group_cuts', count: 2 },
      { what: 'the signature scheme cuts (0021)', table: 'handshakes_signature_cuts', count: 2 },
      {
        what: 'the crypto and evidence columns with the source or the browser (0032, per site only since 0034)',
        table: 'handshakes_source_browser_cuts',
        count: 14,
      },
      {
        what: "two crypto or evidence columns together, and the browser with the crypto facts' source (0033)",
        table: 'handshakes_crypto_pair_cuts',
        count: 27,
      },
      {
        what: "country with the browser and the crypto facts' source (0035)",
        table: 'handshakes_country_coverage_cuts',
        count: 1,
      },
      // Rollups of every site together without per-site twins: each group counts the sites its raw rows hold.
      { what: 'the crypto columns by the hour (0028)', table: 'handshakes_crypto_per_hour', count: 5, sites: true },
      { what: 'the country and crypto cuts (0029)', table: 'handshakes_country_crypto_cuts', count: 4, sites: true },
      {
        what: 'country with one other column, without the mix columns (0036)',
        table: 'handshakes_country_pairs',
        count: 9,
        sites: true,
      },
    ];
    /** The hourly grain's cuts of every site by browser and by source alone (0027). */
    const HOURLY_ALL_SITES_CUTS = (['browser', 'source'] as const).map((c) =>
      hourlyCutNumber([c, 'protocol', 'tlsVersion', 'resumed', 'handshakeClass']),
    );
    /** Per group of those cuts: records, distinct clients and sites, and the tls buckets, from `from`. */
    const hourlyAllSitesGroups = async (from: string) =>
      (
        await (
          await store.query.query({
            query: `SELECT cut, site, browser, source, toUnixTimestamp(hour) AS h, protocol, tlsVersion, resumed,
                      handshakeClass, sum(records) AS n, uniqUpToMerge(99)(clients) AS clients,
                      uniqUpToMerge(99)(sites) AS sites, toString(sumMap(tls_hist)) AS tls
                    FROM ${from} WHERE cut IN (${HOURLY_ALL_SITES_CUTS.join(', ')})
                    GROUP BY cut, site, browser, source, h, protocol, tlsVersion, resumed, handshakeClass ORDER BY ALL`,
            format: 'JSONEachRow',
          })
        ).json<Record<string, unknown>>()
      ).map((r) => JSON.stringify(r));
    const hourlyView = () => `(${viewsInForce().find((v) => v.name === 'handshakes_per_hour_mv')!.select})`;

    it('applies every migration from 0009 on, once', () => {
      expect(applied).toEqual(versionsFrom(9));
    });

    it('fills the crypto rollup (0009) from its rows: both cuts count every record', async () => {
      expect(await rollupTotals(store, 'handshakes_crypto_per_day')).toEqual(
        [0, 1].map((cut) => ({ cut, records: FOLDER_RECORDS, tls: FOLDER_RECORDS, ttfb: FOLDER_RECORDS })),
      );
    });

    it('fills the hourly grain (0013) from its rows: every cut counts every record in its hour', async () => {
      // Per cut and hour: the records, and the values in the tls and ttfb buckets, are the raw table's of that hour.
      const raw = await json(
        'SELECT toUnixTimestamp(toStartOfHour(ts)) AS h, count() AS n FROM handshakes GROUP BY h ORDER BY h',
      );
      expect(raw.length).toBeGreaterThan(200);
      const grain = await json(`
        SELECT cut, toUnixTimestamp(hour) AS h, sum(records) AS n,
               arraySum(mapValues(sumMap(tls_hist))) AS tls, arraySum(mapValues(sumMap(ttfb_hist))) AS ttfb
        FROM handshakes_per_hour GROUP BY cut, h ORDER BY cut, h`);
      const hourly = CUTS.filter((c) => c.table === 'handshakes_per_hour');
      expect(hourly.length).toBe(10);
      for (const c of hourly) {
        const cut = Number(c.where!.replace('cut = ', ''));
        expect(
          grain.filter((r) => r.cut === cut).map(({ h, n, tls, ttfb }) => ({ h, n, tls, ttfb })),
          c.name,
        ).toEqual(raw.map(({ h, n }) => ({ h, n, tls: n, ttfb: n })));
      }
    });

    it.each(SPARSE_CUTS)(
      'fills $what from its rows: each of its $count cuts counts every record (and, where it counts them, each group the registered sites its raw rows hold)',
      async ({ table, count, sites }) => {
        const cuts = cutNumbers(table);
        expect(cuts.length).toBe(count);
        expect(await rollupTotals(store, table)).toEqual(
          cuts.map((cut) => ({ cut, records: FOLDER_RECORDS, tls: FOLDER_RECORDS, ttfb: FOLDER_RECORDS })),
        );
        if (sites) await sitesCountedInEachGroup(table)(store);
      },
    );

    it("derives the hourly grain's cuts of every site by browser and by source alone (0027) from its stored rows: each holds what its view computes from the records", async () => {
      // Every site together only (not per site): the cuts sources.ts reads.
      expect(HOURLY_ALL_SITES_CUTS).toEqual([1667, 1795]);
      expect(
        CUTS.filter((c) => HOURLY_ALL_SITES_CUTS.some((n) => c.where === `cut = ${n}`)).map((c) => c.sites),
      ).toEqual(['all', 'all']);
      const derived = await hourlyAllSitesGroups('handshakes_per_hour');
      expect(derived.length).toBeGreaterThan(200);
      expect(derived).toEqual(await hourlyAllSitesGroups(hourlyView()));
    });

    it('new records reach every one of these rollups through its view; running 0027 again adds nothing', async () => {
      const before = await hourlyAllSitesGroups('handshakes_per_hour');
      const stored = Number((await json('SELECT count() AS n FROM handshakes'))[0]!.n);
      await generateDemoData(store.ingest, { records: ADDED_RECORDS, days: 1, seed: 90 });
      const total = stored + ADDED_RECORDS;
      expect((await rollupTotals(store, 'handshakes_crypto_per_day')).map((r) => r.records)).toEqual([total, total]);
      expect(await json('SELECT sum(records) AS n FROM handshakes_per_hour')).toEqual([{ n: 10 * total }]);
      for (const { table, sites } of SPARSE_CUTS) {
        expect(
          (await rollupTotals(store, table)).map((r) => r.records),
          table,
        ).toEqual(cutNumbers(table).map(() => total));
        if (sites) await sitesCountedInEachGroup(table)(store);
      }
      const after = await hourlyAllSitesGroups('handshakes_per_hour');
      expect(after).not.toEqual(before);
      expect(after).toEqual(await hourlyAllSitesGroups(hourlyView()));
      // Running it again adds nothing: its derivation runs only while the new cuts are empty.
      for (const statement of loadMigrations().find((m) => m.version === 27)!.statements)
        await store.ingest.command({ query: statement });
      expect(await hourlyAllSitesGroups('handshakes_per_hour')).toEqual(after);
    });
  });

  // 0030 copies the hourly grain into a table sorted by the filtered columns before the hour and swaps it in.
  describe('a data folder whose hourly grain is sorted by the hour first, upgraded (0030)', () => {
    let store: Store;
    let dir: string;
    let before: { groups: string[]; table: string };
    const resort = loadMigrations().find((m) => m.version === 30)!;
    const query = async <T>(q: string) => (await store.query.query({ query: q, format: 'JSONEachRow' })).json<T>();
    /** Every group of the grain, each with all it holds: the sums, the merged states and the maps. */
    const grainGroups = async (from = 'handshakes_per_hour') =>
      (
        await query<Record<string, unknown>>(`
          SELECT cut, site, country, browser, source, versionEvidence, cryptoSource, toUnixTimestamp(hour) AS h,
                 protocol, tlsVersion, resumed, handshakeClass, sum(records) AS n, sum(evidenced) AS e,
                 sum(inferred) AS i, uniqUpToMerge(99)(clients) AS clients, uniqUpToMerge(99)(sites) AS sites,
                 toString(sumMap(mix_mode)) AS mode, toString(sumMap(dns_hist)) AS dns,
                 toString(sumMap(tls_hist)) AS tls, toString(sumMap(ttfb_hist)) AS ttfb
          FROM ${from}
          GROUP BY cut, site, country, browser, source, versionEvidence, cryptoSource, h, protocol, tlsVersion,
                   resumed, handshakeClass
          ORDER BY ALL`)
      ).map((r) => JSON.stringify(r));
    const grainTable = async () =>
      (
        await query<{ q: string; key: string }>(
          `SELECT create_table_query AS q, sorting_key AS key FROM system.tables
           WHERE database = currentDatabase() AND name = 'handshakes_per_hour'`,
        )
      )[0]!;
    /** The table's definition but its sort key: columns, types, codecs, engine, partitions. */
    const withoutKey = (q: string) => q.replace(/ ORDER BY \(.*?\)/, '');
    const tables = async () =>
      (
        await query<{ name: string }>(
          "SELECT name FROM system.tables WHERE database = currentDatabase() AND name LIKE 'handshakes_per_hour%' ORDER BY name",
        )
      ).map((r) => r.name);

    beforeAll(async () => {
      dir = tempDir();
      store = openStore({ dataDir: dir, clickhouse: null });
      await fillOlderFolder(store, 30);
      before = { groups: await grainGroups(), table: (await grainTable()).q };
      // A first start stopped right after the swap, before the copy's old table is dropped and the view made.
      const exchange = resort.statements.findIndex((s) => s.startsWith('EXCHANGE'));
      expect(exchange).toBeGreaterThan(0);
      for (const statement of resort.statements.slice(0, exchange + 1))
        await store.ingest.command({ query: statement });
      // A server refuses to drop a table above its size limit (50 GB by default): here every table is above it.
      await store.ingest.command({ query: 'SET max_table_size_to_drop = 1' });
      try {
        // Up to 0030 only: the later ones change the grain's columns (0031 its codecs), not what 0030 does.
        expect(
          await migrate(
            store.ingest,
            loadMigrations().filter((m) => m.version <= 30),
          ),
        ).toEqual([30]);
      } finally {
        await store.ingest.command({ query: 'SET max_table_size_to_drop = 50000000000' });
      }
    }, 180_000);
    afterAll(async () => {
      await store?.close();
      if (dir) removeDir(dir);
    });

    it('sorts the grain by site, then the columns a filter names, then the hour, after a start stopped midway, whatever the size limit on dropping a table', async () => {
      expect(before.table).toMatch(/ORDER BY \(cut, site, hour, country, /);
      expect((await grainTable()).key).toBe(
        'cut, site, country, browser, source, versionEvidence, cryptoSource, hour, protocol, tlsVersion, resumed, handshakeClass',
      );
      expect(await tables()).toEqual(['handshakes_per_hour', 'handshakes_per_hour_mv']);
    });

    it('keeps every group the grain held, with all it holds, and every column, type and codec', async () => {
      expect(before.groups.length).toBeGreaterThan(1000);
      expect(await grainGroups()).toEqual(before.groups);
      expect(withoutKey((await grainTable()).q)).toBe(withoutKey(before.table));
    });

    it('new records reach the re-sorted grain through its view; running 0030 again changes nothing', async () => {
      const stored = Number((await query<{ n: number }>('SELECT count() AS n FROM handshakes'))[0]!.n);
      await generateDemoData(store.ingest, { records: ADDED_RECORDS, days: 1, seed: 91 });
      const total = stored + ADDED_RECORDS;
      expect(await query('SELECT sum(records) AS n FROM handshakes_per_hour')).toEqual([{ n: 10 * total }]);
      const hourlyView = `(${viewsInForce().find((v) => v.name === 'handshakes_per_hour_mv')!.select})`;
      const after = await grainGroups();
      expect(after).toEqual(await grainGroups(hourlyView));
      for (const statement of resort.statements) await store.ingest.command({ query: statement });
      expect(await grainGroups()).toEqual(after);
      expect(await tables()).toEqual(['handshakes_per_hour', 'handshakes_per_hour_mv']);
    });
  });

  it('narrows the stored client hashes (0020) and every cell still counts the clients it counted; a client counted before counts once with its new records; running it again changes nothing', async () => {
    await upgradeFolder(20, async (store) => {
      const json = async <T>(query: string) => (await store.query.query({ query, format: 'JSONEachRow' })).json<T>();
      const tables = await json<{ name: string; key: string }>(
        `SELECT t.name AS name, t.sorting_key AS key FROM system.tables AS t
         WHERE t.database = currentDatabase() AND t.engine LIKE '%MergeTree'
           AND t.name IN (SELECT table FROM system.columns WHERE database = currentDatabase() AND name = 'clients')
         ORDER BY name`,
      );
      expect(tables.map((t) => t.name)).toHaveLength(7);
      // Per table, the clients of each cell (its whole sorting key), and the bytes the states take.
      const counts = () =>
        Promise.all(
          tables.map(({ name, key }) =>
            json<Record<string, unknown>>(
              `SELECT ${key}, ${ROLLUP_CLIENTS} AS clients FROM ${name} GROUP BY ${key} ORDER BY ${key}`,
            ),
          ),
        );
      const bytes = () =>
        Promise.all(
          tables.map(async ({ name }) =>
            Number(
              (await json<{ b: number }>(`SELECT sum(length(formatRow('RowBinary', clients))) AS b FROM ${name}`))[0]!
                .b,
            ),
          ),
        );
      const before = await counts();
      const bytesBefore = await bytes();
      expect(before.flat().some((r) => Number(r.clients) > 1 && Number(r.clients) < ROLLUP_CLIENTS_CAP)).toBe(true);
      expect(before.flat().some((r) => Number(r.clients) === ROLLUP_CLIENTS_CAP)).toBe(true);

      // Up to 0020 only: its re-run below is what a crash before its record leads to, later migrations not yet run.
      expect(
        await migrate(
          store.ingest,
          loadMigrations().filter((m) => m.version <= 20),
        ),
      ).toEqual([20]);
      expect(await counts()).toEqual(before);
      const bytesAfter = await bytes();
      for (const [i, b] of bytesAfter.entries()) expect(b, tables[i]!.name).toBeLessThan(bytesBefore[i]! * 0.6);

      // The views hash new records as the conversion kept the old ones: per site and hour, the stored states
      // merged with states of the same hour's raw rows count each client once, as the raw table does.
      const merged = await json<{ site: string; hour: string; stored: number; both: number; raw: number }>(`
        SELECT site, hour,
               uniqUpToMergeIf(${ROLLUP_CLIENTS_CAP - 1})(s, stored) AS stored,
               ${ROLLUP_CLIENTS.replace('(clients)', '(s)')} AS both,
               max(raw) AS raw
        FROM (
          SELECT site, hour, clients AS s, 1 AS stored, 0 AS raw FROM handshakes_per_hour WHERE site != ''
          UNION ALL
          SELECT site, toStartOfHour(ts, 'UTC') AS hour, uniqUpToState(${ROLLUP_CLIENTS_CAP - 1})(${ROLLUP_CLIENT_HASH}) AS s, 0 AS stored,
                 least(${ROLLUP_CLIENTS_CAP}, uniqExact(clientToken)) AS raw
          FROM handshakes WHERE implausible = 0 AND capped = 0 AND site != '' GROUP BY site, hour
        )
        GROUP BY site, hour`);
      expect(merged.length).toBeGreaterThan(200);
      for (const r of merged) {
        expect(Number(r.stored), `${r.site} ${r.hour}`).toBe(Number(r.raw));
        expect(Number(r.both), `${r.site} ${r.hour}`).toBe(Number(r.raw));
      }

      // Every statement again, as after a crash before the migration's record: the same counts.
      for (const s of loadMigrations().find((m) => m.version === 20)!.statements)
        await store.ingest.command({ query: s });
      expect(await counts()).toEqual(before);
    });
  });

  it("keeps every count of the daily rollups' histograms when their buckets become sparse maps (0025); new records reach them; running it again changes nothing", async () => {
    const PHASES = ['dns', 'tcp', 'tls', 'connect', 'ttfb'];
    const TABLES = ['handshakes_cuts', 'handshakes_crypto_per_day'];
    await upgradeFolder(25, async (store) => {
      const json = async <T>(query: string) => (await store.query.query({ query, format: 'JSONEachRow' })).json<T>();
      const keyOf = async (table: string) =>
        (
          await json<{ key: string }>(
            `SELECT sorting_key AS key FROM system.tables WHERE database = currentDatabase() AND name = '${table}'`,
          )
        )[0]!.key;
      // Per table, each group of its whole sorting key with its records and every phase's count per bucket,
      // read from the dense states before the migration and from the sparse maps after it: each as the
      // [bucket, count] pairs of its buckets that hold records, in bucket order (every other bucket holds 0).
      const histograms = (form: 'dense' | 'sparse') =>
        Promise.all(
          TABLES.map(async (table) => {
            const key = await keyOf(table);
            const counts = (p: string) =>
              form === 'dense'
                ? `arrayFilter(x -> x.2 > 0, arrayMap((n, i) -> (toUInt16(i), toUInt64(n)), countResampleMerge(0, ${BUCKETS}, 1)(${p}_buckets), range(${BUCKETS})))`
                : `arrayMap(m -> arrayFilter(x -> x.2 > 0, arrayMap((k, n) -> (toUInt16(k), toUInt64(n)), mapKeys(m), mapValues(m))), [sumMap(${p}_hist)])[1]`;
            return json<Record<string, unknown>>(
              `SELECT ${key}, sum(records) AS records, ${PHASES.map((p) => `${counts(p)} AS ${p}`).join(', ')}
               FROM ${table} GROUP BY ${key} ORDER BY ${key}`,
            );
          }),
        );
      const before = await histograms('dense');
      for (const [i, rows] of before.entries()) {
        expect(rows.length, TABLES[i]).toBeGreaterThan(100);
        // Groups spread over many buckets (the conversion is exercised, not only empty states).
        expect(
          rows.some((r) => (r.tls as unknown[]).length > 10),
          TABLES[i],
        ).toBe(true);
      }

      expect(await migrate(store.ingest)).toEqual(versionsFrom(25));
      expect(await histograms('sparse')).toEqual(before);
      const columns = await json<{ name: string; type: string }>(
        `SELECT name, type FROM system.columns WHERE database = currentDatabase() AND has(['${TABLES.join("', '")}'], table)
           AND (name LIKE '%\\_buckets' OR name LIKE '%\\_hist')`,
      );
      expect(columns.map((c) => c.type)).toEqual(Array(PHASES.length * TABLES.length).fill(BUCKET_STATE_TYPE));

      // Every statement again, as after a crash before the migration's record (the dense columns re-added
      // empty): the same counts.
      for (const s of loadMigrations().find((m) => m.version === 25)!.statements)
        await store.ingest.command({ query: s });
      expect(await histograms('sparse')).toEqual(before);

      // New records reach both rollups through their re-created views, every record in its buckets.
      await generateDemoData(store.ingest, { records: ADDED_RECORDS, days: 1, seed: 26 });
      expect((await rollupTotals(store)).map((r) => r.records)).toEqual(CUT_NUMBERS.map(() => AFTER_ADDING));
      expect(await rollupTotals(store)).toEqual(
        CUT_NUMBERS.map((cut) => ({ cut, records: AFTER_ADDING, tls: AFTER_ADDING, ttfb: AFTER_ADDING })),
      );
      expect((await rollupTotals(store, 'handshakes_crypto_per_day')).map((r) => r.tls)).toEqual([
        AFTER_ADDING,
        AFTER_ADDING,
      ]);
    });
  });

  it('replaces the t-digest rollup of a data folder with the bucket rollup, refilled from the stored rows', async () => {
    await upgradeFolder(6, async (store) => {
      expect(await migrate(store.ingest)).toEqual(versionsFrom(6));
      expect(await rollupTotals(store)).toEqual(EVERY_CUT_COUNTS_EVERY_RECORD);
      const columns = await (
        await store.query.query({
          query:
            "SELECT name, type FROM system.columns WHERE database = currentDatabase() AND table = 'handshakes_cuts' AND name IN ('clients', 'tls_hist')",
          format: 'JSONEachRow',
        })
      ).json<{ name: string; type: string }>();
      expect(Object.fromEntries(columns.map((c) => [c.name, c.type]))).toEqual({
        clients: 'AggregateFunction(uniqUpTo(99), UInt32)',
        tls_hist: BUCKET_STATE_TYPE,
      });
      // New records reach the new rollup through its view.
      await generateDemoData(store.ingest, { records: ADDED_RECORDS, days: 1, seed: 5 });
      expect((await rollupTotals(store)).map((r) => r.records)).toEqual(CUT_NUMBERS.map(() => AFTER_ADDING));
    });
  });

  it('replaces the four-cut daily rollup with the cut table, refilled from the stored rows, every declared cut present', async () => {
    await upgradeFolder(11, async (store) => {
      expect(await migrate(store.ingest)).toEqual(versionsFrom(11));
      expect(await rollupTotals(store)).toEqual(EVERY_CUT_COUNTS_EVERY_RECORD);
      // Each key column holds its own values (the backfill inserts the view's SELECT by position): per cut
      // and column, the records per value equal the raw table's.
      const perValue = async (sql: string) =>
        (await (await store.query.query({ query: sql, format: 'JSONEachRow' })).json<{ k: string; n: number }>())
          .map((r) => `${r.k}=${Number(r.n)}`)
          .sort();
      for (const c of CUTS) {
        for (const col of [...c.cut!, ...(c.sites === 'one' ? ['site'] : [])]) {
          expect(
            await perValue(
              `SELECT toString(${col}) AS k, sum(records) AS n FROM ${c.table} WHERE ${c.where} GROUP BY k`,
            ),
            `${c.name}: ${col}`,
          ).toEqual(
            await perValue(
              `SELECT toString(${RAW_OF[col]}) AS k, count() AS n FROM handshakes WHERE implausible = 0 AND capped = 0 GROUP BY k`,
            ),
          );
        }
      }
      const tables = await store.query.query({
        query: "SELECT name FROM system.tables WHERE database = currentDatabase() AND name LIKE 'handshakes_per_day%'",
        format: 'JSONEachRow',
      });
      expect(await tables.json()).toEqual([]);
      // Each backfill filled a copy a few whole days at a time, attached its partitions and dropped it.
      const copies = await store.query.query({
        query: "SELECT name FROM system.tables WHERE database = currentDatabase() AND name LIKE '%\\_backfill'",
        format: 'JSONEachRow',
      });
      expect(await copies.json()).toEqual([]);
      await generateDemoData(store.ingest, { records: ADDED_RECORDS, days: 1, seed: 11 });
      expect((await rollupTotals(store)).map((r) => r.records)).toEqual(CUT_NUMBERS.map(() => AFTER_ADDING));
    });
  });

  it('splits migration files into statements, ignoring comments', () => {
    expect(splitStatements('-- c\nCREATE TABLE a (x UInt8) ENGINE = Memory;\n\nSELECT 1;\n')).toEqual([
      'CREATE TABLE a (x UInt8) ENGINE = Memory',
      'SELECT 1',
    ]);
  });

  it('flushes buffered rows on shutdown, and the data survives a restart', async () => {
    const t = await startApp({ FLUSH_INTERVAL_MS: '60000' });
    try {
      const batch = makeBatch(makeRecords(250));
      expect((await postBatch(t.app, batch, { gzip: true })).statusCode).toBe(202);
      expect(t.app.ingest.size).toBe(250); // still buffered: the interval is a minute
      await t.close();
      const store = openStore({ dataDir: t.dataDir, clickhouse: null });
      expect(await countRows(store)).toBe(250);
      await store.close();
      const again = await startApp({}, t.dataDir);
      expect(await countRows(again.app.store)).toBe(250);
      await again.close();
    } finally {
      removeDir(t.dataDir);
    }
  });

  it('flushes at FLUSH_MAX_ROWS without waiting for the interval', async () => {
    await withApp({ FLUSH_INTERVAL_MS: '60000', FLUSH_MAX_ROWS: '100' }, async (t) => {
      await postBatch(t.app, makeBatch(makeRecords(120)), { gzip: true });
      await t.app.ingest.flush();
      expect(await countRows(t.app.store)).toBe(120);
    });
  });

  it('answers 503 with Retry-After when the buffer is full, and keeps what it acknowledged', async () => {
    await withApp({ FLUSH_INTERVAL_MS: '60000', FLUSH_MAX_ROWS: '100000', MAX_BUFFERED_ROWS: '5' }, async (t) => {
      expect((await postBatch(t.app, makeBatch(makeRecords(5)))).statusCode).toBe(202);
      const full = await postBatch(t.app, makeBatch(makeRecords(1)));
      expect(full.statusCode).toBe(503);
      expect(Number(full.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      await t.app.ingest.flush();
      expect(await countRows(t.app.store)).toBe(5);
      expect((await postBatch(t.app, makeBatch(makeRecords(1)))).statusCode).toBe(202);
    });
  });

  it('never stores or logs the client IP address', async () => {
    const t = await startApp();
    const ips = ['203.0.113.77', '2001:db8::77', '8.8.4.4'];
    try {
      for (const ip of ips)
        expect((await postBatch(t.app, makeBatch(makeRecords(3)), { ip, gzip: true })).statusCode).toBe(202);
      await t.app.inject({ url: '/v1/handshakes?from=203.0.113.77', remoteAddress: '203.0.113.77' });
      await t.app.ingest.flush();
      // Every column of every row, as text.
      const rs = await t.app.store.query.query({ query: 'SELECT * FROM handshakes', format: 'JSONEachRow' });
      const stored = JSON.stringify(await rs.json());
      const tables = await t.app.store.query.query({
        query: 'SELECT name FROM system.tables WHERE database = currentDatabase()',
        format: 'JSONEachRow',
      });
      let everything = stored;
      for (const { name } of await tables.json<{ name: string }>()) {
        everything += JSON.stringify(
          await (await t.app.store.query.query({ query: `SELECT * FROM ${name}`, format: 'JSONEachRow' })).json(),
        );
      }
      expect(stored).toContain('"country":"US"');
      for (const ip of ips) {
        expect(everything).not.toContain(ip);
        expect(t.logs()).not.toContain(ip);
      }
      expect(t.logs()).toContain('"route":"/v1/handshakes"');
    } finally {
      await t.close();
      removeDir(t.dataDir);
    }
  });
});
