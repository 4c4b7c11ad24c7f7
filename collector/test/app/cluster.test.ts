/**
 * The cluster DDL is generated from the single-node migrations; every generated statement is parsed by
 * the embedded ClickHouse engine (formatQuery / EXPLAIN AST), and its structure checked: replicated
 * local tables with {shard}/{replica}, Distributed tables sharded by site, views on local tables.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClickHouseClient } from '@clickhouse/client';
import { main } from '../../src/cli';
import { ConfigError, loadConfig } from '../../src/platform/config';
import { clusterStatements, printClusterScript, type ClusterLayout } from '../../src/platform/store/cluster';
import { loadMigrations, splitStatements, type Migration } from '../../src/platform/store/migrate';
import { openStore, removeDir, tempDir } from '../support/helpers';

const layout: ClusterLayout = { cluster: 'rum_cluster', database: 'tlsrum' };

/** A later migration of the shapes the schema grows by: a rollup fed by a view, a column, a back-fill. */
const extra: Migration[] = [
  {
    version: 90,
    name: 'rollup_fixture',
    statements: splitStatements(`
CREATE TABLE IF NOT EXISTS handshakes_hourly
(
    site   LowCardinality(String),
    hour   DateTime('UTC'),
    country LowCardinality(String),
    records AggregateFunction(count),
    tlsDigest AggregateFunction(quantilesTDigest(0.5, 0.75, 0.95), Float32)
)
ENGINE = AggregatingMergeTree
ORDER BY (site, hour, country);
CREATE MATERIALIZED VIEW IF NOT EXISTS handshakes_hourly_mv TO handshakes_hourly AS
SELECT site, toStartOfHour(ts) AS hour, country, countState() AS records, quantilesTDigestState(0.5, 0.75, 0.95)(tls) AS tlsDigest
FROM handshakes GROUP BY site, hour, country;
INSERT INTO handshakes_hourly SELECT site, toStartOfHour(ts) AS hour, country, countState(), quantilesTDigestState(0.5, 0.75, 0.95)(tls) FROM handshakes GROUP BY site, hour, country;
ALTER TABLE handshakes ADD COLUMN IF NOT EXISTS note LowCardinality(String) DEFAULT '';
ALTER TABLE handshakes MODIFY SETTING non_replicated_deduplication_window = 20000;
ALTER TABLE handshakes MODIFY COLUMN note CODEC(ZSTD(3)), MODIFY COLUMN site CODEC(ZSTD(1));
ALTER TABLE handshakes MODIFY COLUMN note LowCardinality(String) DEFAULT 'none' CODEC(ZSTD(3));
`),
  },
];

let dir: string;
let client: ClickHouseClient;
let close: () => Promise<void>;

beforeAll(() => {
  dir = tempDir();
  const store = openStore({ dataDir: dir, clickhouse: null });
  client = store.query;
  close = store.close;
});
afterAll(async () => {
  await close();
  removeDir(dir);
});

async function format(sql: string): Promise<string> {
  const rs = await client.query({
    query: 'SELECT formatQuery({q:String}) AS f',
    query_params: { q: sql },
    format: 'JSONEachRow',
  });
  return (await rs.json<{ f: string }>())[0]!.f;
}

async function ast(sql: string): Promise<string> {
  const rs = await client.query({ query: `EXPLAIN AST ${sql}`, format: 'TabSeparatedRaw' });
  return rs.text();
}

describe('cluster DDL', () => {
  const migrations = [...loadMigrations(), ...extra];
  const stmts = clusterStatements(migrations, layout).map((s) => s.sql);

  it('parses every statement of the printed script with the embedded engine', async () => {
    const script = printClusterScript(migrations, layout);
    const all = splitStatements(script);
    expect(all.length).toBe(stmts.length + 1); // + the INSERT recording the migrations
    for (const sql of all) {
      const formatted = await format(sql);
      expect(formatted.length).toBeGreaterThan(20);
      // Formatting is a fixpoint: what we print is what ClickHouse understood.
      expect(await format(formatted)).toBe(formatted);
    }
  });

  it("derives a rollup's rows from its own through the Distributed tables, and leaves back-fills from the raw rows to the operator", () => {
    const inserts = stmts.filter((s) => s.startsWith('INSERT'));
    // 0024's site counts: the four rollups read for every site together, each from itself; 0027's hourly cuts
    // by browser or source alone, from the hourly grain's cut by the three together; 0030's copy of the hourly
    // grain sorted another way, from the grain.
    expect(inserts.map((s) => /^INSERT INTO (\S+)/.exec(s)![1])).toEqual([
      'tlsrum.handshakes_cuts',
      'tlsrum.handshakes_per_hour',
      'tlsrum.handshakes_country_cuts',
      'tlsrum.handshakes_country_group_cuts',
      'tlsrum.handshakes_per_hour',
      'tlsrum.handshakes_per_hour_resorted',
    ]);
    for (const s of inserts) {
      const target = /^INSERT INTO (\S+)/.exec(s)![1]!;
      const sources = [...s.matchAll(/\bFROM (\S+)/g)].map((x) => x[1]);
      expect(sources.length).toBeGreaterThan(0);
      for (const source of sources) expect(source).toBe(target.replace(/_resorted$/, ''));
    }
    // The single-node back-fills (0003's: a view's SELECT over the raw table) have no cluster statement.
    const backfills = loadMigrations()
      .flatMap((m) => m.statements)
      .filter((s) => /^INSERT INTO/.test(s) && /\bFROM handshakes\b/.test(s));
    expect(backfills.length).toBeGreaterThan(0);
    expect(stmts.filter((s) => /\bFROM tlsrum\.handshakes(_local)?\b/.test(s) && s.startsWith('INSERT'))).toEqual([]);
  });

  it('puts every DDL statement ON CLUSTER and qualifies every table with the database', async () => {
    for (const sql of stmts) {
      const formatted = await format(sql);
      if (!sql.startsWith('INSERT')) expect(formatted, sql).toMatch(/ ON CLUSTER rum_cluster\b/);
      expect(formatted).not.toMatch(
        /\b(TABLE|VIEW|TO|FROM)\s+(IF NOT EXISTS\s+)?(handshakes|sites|handshakes_hourly)\b/,
      );
    }
  });

  it('makes the raw table a replicated local table behind a Distributed table sharded by site', async () => {
    const local = stmts.find((s) => s.includes('tlsrum.handshakes_local ON CLUSTER') && s.startsWith('CREATE TABLE'))!;
    const tree = await ast(local);
    expect(tree).toContain('Function ReplicatedMergeTree (children 1)');
    expect(tree).toContain("Literal '/clickhouse/tables/{shard}/tlsrum/handshakes_local'");
    expect(tree).toContain("Literal '{replica}'");
    // Same columns, order, codecs and keys as the single-node table.
    const single = loadMigrations()[0]!.statements[0]!;
    const strip = (s: string) =>
      s
        .replace(/ ON CLUSTER \w+/, '')
        .replace(/tlsrum\.handshakes_local/, 'handshakes')
        .replace(/ReplicatedMergeTree\('[^']*', '\{replica\}'\)/, 'MergeTree')
        .replace('replicated_deduplication_window', 'non_replicated_deduplication_window');
    expect(strip(await format(local))).toBe(await format(single));

    const dist = stmts.find((s) => s.startsWith('CREATE TABLE IF NOT EXISTS tlsrum.handshakes ON CLUSTER'))!;
    expect(await format(dist)).toContain(
      'ENGINE = Distributed(rum_cluster, tlsrum, handshakes_local, cityHash64(site))',
    );
    expect(await format(dist)).toContain('AS tlsrum.handshakes_local');
  });

  it('replicates registries to every node without a Distributed table', async () => {
    const sites = stmts.filter((s) => /\btlsrum\.sites\b/.test(s) && s.startsWith('CREATE'));
    expect(sites).toHaveLength(1);
    // Later column changes (the read-token hash) apply to the replicated table on every node.
    for (const alter of stmts.filter((s) => /^ALTER TABLE tlsrum\.sites\b/.test(s)))
      expect(alter).toMatch(/ ON CLUSTER rum_cluster /);
    expect(await format(sites[0]!)).toContain(
      "ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/all/tlsrum/sites', '{replica}', version)",
    );
    expect(stmts.some((s) => s.includes('sites_local'))).toBe(false);
  });

  it('turns an AggregatingMergeTree rollup into a replicated local rollup fed by a view on the local raw table', async () => {
    const rollup = await format(
      stmts.find((s) => s.startsWith('CREATE TABLE IF NOT EXISTS tlsrum.handshakes_hourly_local'))!,
    );
    expect(rollup).toContain(
      "ENGINE = ReplicatedAggregatingMergeTree('/clickhouse/tables/{shard}/tlsrum/handshakes_hourly_local', '{replica}')",
    );
    const dist = await format(
      stmts.find((s) => s.startsWith('CREATE TABLE IF NOT EXISTS tlsrum.handshakes_hourly ON'))!,
    );
    expect(dist).toContain('Distributed(rum_cluster, tlsrum, handshakes_hourly_local, cityHash64(site))');
    const mv = stmts.find((s) => s.includes('MATERIALIZED VIEW'))!;
    const tree = await ast(mv);
    expect(tree).toContain('TableIdentifier tlsrum.handshakes_local');
    expect(await format(mv)).toContain('TO tlsrum.handshakes_hourly_local');
    // The back-fill from the raw rows has no meaning on a new cluster and is not emitted.
    expect(stmts.some((s) => s.startsWith('INSERT INTO tlsrum.handshakes_hourly'))).toBe(false);
  });

  it('applies column changes to both the local and the Distributed table, storage settings and codecs to the local one only', () => {
    const add = stmts.filter((s) => s.includes('ADD COLUMN IF NOT EXISTS note'));
    expect(add.map((s) => s.split(' ')[2])).toEqual(['tlsrum.handshakes_local', 'tlsrum.handshakes']);
    const codec = stmts.filter((s) => s.includes('MODIFY COLUMN note CODEC'));
    expect(codec.map((s) => s.split(' ')[2])).toEqual(['tlsrum.handshakes_local']);
    const typeAndCodec = stmts.filter((s) => s.includes("MODIFY COLUMN note LowCardinality(String) DEFAULT 'none'"));
    expect(typeAndCodec.map((s) => s.split(' ')[2])).toEqual(['tlsrum.handshakes_local', 'tlsrum.handshakes']);
    const rollupCodecs = stmts.filter(
      (s) => s.startsWith('ALTER TABLE tlsrum.handshakes_per_hour') && s.includes('CODEC'),
    );
    // ZSTD (0022), then T64 before it (0031): the local table only, each time.
    expect(rollupCodecs.map((s) => s.split(' ')[2])).toEqual([
      'tlsrum.handshakes_per_hour_local',
      'tlsrum.handshakes_per_hour_local',
    ]);
    expect(rollupCodecs[1]).toContain('MODIFY COLUMN tls_hist CODEC(T64, ZSTD(3))');
    const setting = stmts.filter((s) => s.includes('MODIFY SETTING'));
    expect(setting).toEqual([
      'ALTER TABLE tlsrum.handshakes_local ON CLUSTER rum_cluster MODIFY SETTING replicated_deduplication_window = 20000',
    ]);
  });

  it('re-sorts a sharded rollup on every shard: a fresh copy under a new replication path, filled through the Distributed tables before the local tables swap', async () => {
    const resort = clusterStatements(migrations, layout)
      .filter((s) => s.version === 30)
      .map((s) => s.sql);
    const brief = resort.map((s) => s.split('\n')[0]!.replace(/ SELECT .*/, ''));
    expect(brief).toEqual([
      'DROP VIEW IF EXISTS tlsrum.handshakes_per_hour_mv ON CLUSTER rum_cluster SYNC',
      // An earlier run's copy, in either layout; the copies are dropped whatever their size.
      'DROP TABLE IF EXISTS tlsrum.handshakes_per_hour_resorted ON CLUSTER rum_cluster SYNC SETTINGS max_table_size_to_drop = 0',
      'DROP TABLE IF EXISTS tlsrum.handshakes_per_hour_resorted_local ON CLUSTER rum_cluster SYNC SETTINGS max_table_size_to_drop = 0',
      'CREATE TABLE tlsrum.handshakes_per_hour_resorted_local ON CLUSTER rum_cluster',
      'CREATE TABLE tlsrum.handshakes_per_hour_resorted ON CLUSTER rum_cluster AS tlsrum.handshakes_per_hour_resorted_local',
      'INSERT INTO tlsrum.handshakes_per_hour_resorted SETTINGS insert_distributed_sync = 1',
      'EXCHANGE TABLES tlsrum.handshakes_per_hour_local AND tlsrum.handshakes_per_hour_resorted_local ON CLUSTER rum_cluster',
      'DROP TABLE tlsrum.handshakes_per_hour_resorted ON CLUSTER rum_cluster SYNC SETTINGS max_table_size_to_drop = 0',
      'DROP TABLE tlsrum.handshakes_per_hour_resorted_local ON CLUSTER rum_cluster SYNC SETTINGS max_table_size_to_drop = 0',
      'CREATE MATERIALIZED VIEW IF NOT EXISTS tlsrum.handshakes_per_hour_mv ON CLUSTER rum_cluster TO tlsrum.handshakes_per_hour_local',
    ]);
    expect(resort[5]).toMatch(/ SELECT \* FROM tlsrum\.handshakes_per_hour$/);
    // The copy's replication path is its own on each run ({uuid}): after the swap the grain lives there, and
    // a later run's copy must not meet it.
    expect(await ast(resort[3]!)).toContain(
      "Literal '/clickhouse/tables/{shard}/tlsrum/handshakes_per_hour_resorted_local/{uuid}'",
    );
    const grain = stmts.find((s) => s.startsWith('CREATE TABLE IF NOT EXISTS tlsrum.handshakes_per_hour_local '))!;
    expect(await ast(grain)).toContain("Literal '/clickhouse/tables/{shard}/tlsrum/handshakes_per_hour_local'");
  });

  it('refuses what it cannot translate and names that are not identifiers', () => {
    const bad = (sql: string): Migration[] => [{ version: 1, name: 'x', statements: [sql] }];
    expect(() => clusterStatements(bad('CREATE TABLE t (a String) ENGINE = Log'), layout)).toThrow(
      /no MergeTree-family engine/,
    );
    expect(() => clusterStatements(bad('RENAME TABLE a TO b'), layout)).toThrow(/no cluster translation/);
    expect(() => clusterStatements(bad('ALTER TABLE nowhere ADD COLUMN a String'), layout)).toThrow(
      /before creating it/,
    );
    expect(() => clusterStatements([], { cluster: 'x; DROP DATABASE y', database: 'tlsrum' })).toThrow(
      /cluster name must be an identifier/,
    );
  });
});

describe('pnpm collector migrate', () => {
  it('prints the cluster DDL, or writes it to --out', async () => {
    let printed = '';
    expect(await main(['migrate', '--cluster', 'rum_cluster', '--print'], {}, (s) => (printed += s))).toBe(0);
    expect(printed).toContain('ENGINE = Distributed(rum_cluster, tlsrum, handshakes_local, cityHash64(site))');
    const file = join(dir + '-out.sql');
    expect(
      await main(['migrate', '--cluster', 'rum_cluster', '--database', 'rum', '--print', '--out', file], {}, () => {}),
    ).toBe(0);
    expect(readFileSync(file, 'utf8')).toContain(
      'CREATE TABLE IF NOT EXISTS rum.handshakes_local ON CLUSTER rum_cluster',
    );
    rmSync(file);
    let usage = '';
    expect(await main(['frobnicate'], {}, (s) => (usage += s))).toBe(2);
    expect(usage).toMatch(/^usage: pnpm collector migrate/);
  });

  it('needs a server for a cluster', () => {
    expect(() => loadConfig({ CLICKHOUSE_CLUSTER: 'c' })).toThrow(ConfigError);
    expect(() => loadConfig({ CLICKHOUSE_URL: 'http://h:8123', CLICKHOUSE_CLUSTER: 'bad-name' })).toThrow(
      /CLICKHOUSE_CLUSTER must be an identifier/,
    );
    expect(loadConfig({ CLICKHOUSE_URL: 'http://h:8123', CLICKHOUSE_CLUSTER: 'c' }).clickhouse?.cluster).toBe('c');
  });
});
