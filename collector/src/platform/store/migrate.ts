/**
 * Numbered SQL migrations (src/platform/store/migrations/NNNN_name.sql), applied in order at start-up and
 * recorded in `schema_migrations`. Each statement is idempotent (IF NOT EXISTS), so a crash between a
 * statement and its record, or two collectors starting at once, is harmless: running twice is safe. A
 * migration that copies a table and swaps the copy in (0030) is safe to run again after a crash at any
 * point, but not from two collectors at the same moment: one could swap in the other's copy half made.
 * Such a migration is applied with one collector started first (docs/operations.md, docs/cluster.md).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ClickHouseClient } from '@clickhouse/client';
import { clusterMigrations, schemaMigrationsDdl, type ClusterLayout } from './cluster';
import { withSortedBuckets } from '../../query/histogram';

export const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));

export interface Migration {
  version: number;
  name: string;
  statements: string[];
}

export function loadMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f))
    .sort()
    .map((file) => ({
      version: Number(file.slice(0, 4)),
      name: file.slice(5, -4),
      statements: splitStatements(readFileSync(`${dir}/${file}`, 'utf8')),
    }));
}

/** Splits on `;` at the end of a line; strips `--` comment lines. Our migrations keep to that form. */
export function splitStatements(sql: string): string[] {
  return sql
    .split('\n')
    .filter((line) => !line.trim().startsWith('--'))
    .join('\n')
    .split(/;\s*(?:\n|$)/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * Applies what is not yet applied. With a cluster layout, the same migrations are translated to
 * ON CLUSTER DDL (platform/store/cluster.ts) and the migration log itself is replicated to every node.
 */
export async function migrate(
  client: ClickHouseClient,
  migrations = loadMigrations(),
  cluster: ClusterLayout | null = null,
): Promise<number[]> {
  if (cluster) migrations = clusterMigrations(migrations, cluster);
  await client.command({
    query: cluster
      ? schemaMigrationsDdl(cluster)
      : `CREATE TABLE IF NOT EXISTS schema_migrations
            (version UInt32, name String, appliedAt DateTime('UTC') DEFAULT now())
            ENGINE = ReplacingMergeTree ORDER BY version`,
  });
  const done = new Set(
    (
      await (
        await client.query({ query: 'SELECT version FROM schema_migrations FINAL', format: 'JSONEachRow' })
      ).json<{ version: number }>()
    ).map((r) => Number(r.version)),
  );
  const applied: number[] = [];
  const pending = migrations.filter((m) => !done.has(m.version));
  // Nothing applied yet: a new store, with no rows anywhere (the collector stores nothing before its migrations
  // are applied), so no view has anything to back-fill.
  const empty = done.size === 0;
  for (const [i, m] of pending.entries()) {
    for (const statement of m.statements) await client.command({ query: statement });
    // A cluster's existing rows are back-filled by the operator per shard (docs/cluster.md). A rollup
    // that a later pending migration drops is not filled: on an old data folder that would scan every
    // stored row once per superseded rollup (0003's, 0005's) only to throw the result away.
    const droppedLater = new Set(pending.slice(i + 1).flatMap((later) => dropped(later.statements)));
    if (!cluster && !empty)
      for (const view of materializedViews(m.statements))
        if (!droppedLater.has(view.target)) await backfill(client, view, true);
    await client.insert({
      table: 'schema_migrations',
      values: [{ version: m.version, name: m.name }],
      format: 'JSONEachRow',
    });
    applied.push(m.version);
  }
  return applied;
}

export interface MaterializedView {
  name: string;
  target: string;
  /** The view's SELECT: what it writes into `target` for the rows of one insert. */
  select: string;
  /** The CREATE statement itself. */
  statement: string;
}

/** The `CREATE MATERIALIZED VIEW … TO target AS SELECT …` statements among `statements`. */
export function materializedViews(statements: string[]): MaterializedView[] {
  return statements.flatMap((statement) => {
    const m = /^CREATE\s+MATERIALIZED\s+VIEW\s+(?:IF\s+NOT\s+EXISTS\s+)?(\w+)\s+TO\s+(\w+)\s+AS\s+/i.exec(statement);
    return m ? [{ name: m[1]!, target: m[2]!, select: statement.slice(m[0].length), statement }] : [];
  });
}

/** The materialized views a fully migrated store has, each by its last definition (later migrations re-create some). */
export function viewsInForce(migrations: Migration[] = loadMigrations()): MaterializedView[] {
  const views = new Map<string, MaterializedView>();
  for (const m of migrations)
    for (const statement of m.statements) {
      for (const name of dropped([statement], 'VIEW')) views.delete(name);
      for (const view of materializedViews([statement])) views.set(view.name, view);
    }
  return [...views.values()];
}

/** The rollups' views: every view in force but those that copy raw rows (the what-if's client sample, 0026). */
export function rollupViewsInForce(migrations: Migration[] = loadMigrations()): MaterializedView[] {
  return viewsInForce(migrations).filter((v) => v.target !== CLIENT_SAMPLE_TABLE);
}

/** The tables (or views) that `DROP TABLE|VIEW [IF EXISTS] name` statements among `statements` remove. */
export function dropped(statements: string[], kind: 'TABLE' | 'VIEW' = 'TABLE'): string[] {
  return statements.flatMap((statement) => {
    const m = new RegExp(`^DROP\\s+${kind}\\s+(?:IF\\s+EXISTS\\s+)?(\\w+)`, 'i').exec(statement);
    return m ? [m[1]!] : [];
  });
}

/**
 * Fills a view's target from every row already stored (a view only sees inserts made after it exists):
 * the view's own SELECT over the stored rows, so there is one definition of what a rollup holds.
 * With `onlyIfEmpty` a target that already has rows is left alone (a re-run after a crash adds nothing).
 * Migrations finish before the ingest pipeline inserts anything, so no row is counted twice.
 *
 * It reads the stored records a few whole UTC days at a time (`dayRuns`), each run with the view's histograms
 * built from sorted bucket indices (`rawRowsSelect`): at ten million records on two cores, a third to a half of
 * the time of the view's SELECT over every record at once (the hourly grain 121–127 → 46–47 s). The runs go into
 * an empty copy of the target whose partitions are then attached to it, so a crash before they are leaves the
 * target empty and the next start fills it whole. A SELECT that does not read the raw table exactly once runs as
 * it is.
 */
export async function backfill(client: ClickHouseClient, view: MaterializedView, onlyIfEmpty: boolean): Promise<void> {
  if (onlyIfEmpty) {
    const rs = await client.query({ query: `SELECT count() AS n FROM ${view.target}`, format: 'JSONEachRow' });
    if (Number((await rs.json<{ n: number }>())[0]?.n) > 0) return;
  }
  // Names and SELECT come from the migration files, never from input.
  if (rawTableReads(view) !== 1) {
    await client.command({ query: `INSERT INTO ${view.target} ${view.select}` });
    return;
  }
  const staging = `${view.target}_backfill`;
  // A copy left by a crash is dropped whatever its size (a server refuses to drop a table over 50 GB by default).
  const drop = `DROP TABLE IF EXISTS ${staging} SETTINGS max_table_size_to_drop = 0`;
  await client.command({ query: drop });
  await client.command({ query: `CREATE TABLE ${staging} AS ${view.target}` });
  for (const run of await dayRuns(client, 'handshakes'))
    await client.command({ query: `INSERT INTO ${staging} ${rawRowsSelect(view, 'handshakes', run)}` });
  await attachPartitions(client, staging, view.target);
  await client.command({ query: drop });
}

/** Attaches every partition of `from` to `to`, a table of the same structure (their names are constants, not input). */
export async function attachPartitions(client: ClickHouseClient, from: string, to: string): Promise<void> {
  const partitions = await (
    await client.query({
      query:
        'SELECT DISTINCT partition_id AS id FROM system.parts WHERE active AND database = currentDatabase() AND table = {t:String}',
      query_params: { t: from },
      format: 'JSONEachRow',
    })
  ).json<{ id: string }>();
  for (const { id } of partitions) {
    if (!/^[\w-]+$/.test(id)) throw new Error(`unexpected partition id ${JSON.stringify(id)} in ${from}`);
    await client.command({ query: `ALTER TABLE ${to} ATTACH PARTITION ID '${id}' FROM ${from}` });
  }
}

const RAW_TABLE_READ = /\bFROM handshakes\b/g;

/** How many times a view's SELECT reads the raw table: `rawRowsSelect` can point only a single read elsewhere. */
export const rawTableReads = (view: MaterializedView): number => view.select.match(RAW_TABLE_READ)?.length ?? 0;
const DAY_S = 86_400;

/**
 * The most records one statement of a backfill reads with sorted-bucket histograms, which hold every record's
 * bucket index per grouping set until its group is counted: up to about 1 GB at this size for the view with the
 * most grouping sets (27). A day holding more is read alone, by the view's own SELECT.
 */
export const BULK_MAX_RECORDS = 2_000_000;

/** A run of whole UTC days [from, to) (epoch seconds) and the records `table` holds in it. */
export interface DayRun {
  from: number;
  to: number;
  records: number;
}

/**
 * `table`'s records in runs of consecutive whole UTC days of at most BULK_MAX_RECORDS each (a day with more is a
 * run of its own). Every rollup groups by the day or the hour, so a run's records are whole groups.
 */
export async function dayRuns(client: ClickHouseClient, table: string): Promise<DayRun[]> {
  const days = await (
    await client.query({
      // `table` is a constant of the callers (the raw table or a copy of it), never input.
      query: `SELECT toUnixTimestamp(toStartOfDay(ts, 'UTC')) AS day, count() AS n FROM ${table} GROUP BY day ORDER BY day`,
      format: 'JSONEachRow',
    })
  ).json<{ day: number | string; n: number | string }>();
  const runs: DayRun[] = [];
  for (const d of days) {
    const day = Number(d.day);
    const n = Number(d.n);
    const last = runs.at(-1);
    if (last && last.records + n <= BULK_MAX_RECORDS) {
      last.to = day + DAY_S;
      last.records += n;
    } else runs.push({ from: day, to: day + DAY_S, records: n });
  }
  return runs;
}

/**
 * A view's SELECT over the records of `table` (the raw table or a copy of it) in `run`: with sorted-bucket
 * histograms (query/histogram.ts, the same maps as the view's) up to BULK_MAX_RECORDS, else as the view has it.
 * For a view that reads the raw table once (`rawTableReads`).
 */
export function rawRowsSelect(view: MaterializedView, table: string, run: DayRun): string {
  if (rawTableReads(view) !== 1) throw new Error(`${view.name} does not read the raw table exactly once`);
  const rows = `(SELECT * FROM ${table} WHERE ts >= toDateTime(${run.from}, 'UTC') AND ts < toDateTime(${run.to}, 'UTC'))`;
  const select = run.records <= BULK_MAX_RECORDS ? withSortedBuckets(view.select) : view.select;
  return select.replace(RAW_TABLE_READ, `FROM ${rows}`);
}

/** A table whose rows expire: its name and the DateTime64 column its TTL counts from. */
export interface RetainedTable {
  table: string;
  column: string;
}

export const HANDSHAKES_RETENTION: RetainedTable = { table: 'handshakes', column: 'ts' };
/** The what-if's client sample (migration 0026): a copy of some clients' raw rows, kept as long as the raw rows are. */
export const CLIENT_SAMPLE_TABLE = 'handshakes_client_sample';
export const CLIENT_SAMPLE_RETENTION: RetainedTable = { table: CLIENT_SAMPLE_TABLE, column: 'ts' };
export const SITE_PROBES_RETENTION: RetainedTable = { table: 'site_probes', column: 'probedAt' };

/** Keeps a table's TTL (the handshakes' by default) equal to the configured retention without rewriting old parts. */
export async function applyRetention(
  client: ClickHouseClient,
  days: number,
  cluster: ClusterLayout | null = null,
  { table, column }: RetainedTable = HANDSHAKES_RETENTION,
): Promise<boolean> {
  if (!Number.isInteger(days) || days < 1)
    throw new RangeError(`retention must be a positive whole number of days, got ${days}`);
  const rows = await (
    await client.query({
      query:
        'SELECT create_table_query AS q FROM system.tables WHERE database = currentDatabase() AND name = {table:String}',
      query_params: { table: cluster ? `${table}_local` : table },
      format: 'JSONEachRow',
    })
  ).json<{ q: string }>();
  const wanted = `TTL toDateTime(${column}) + toIntervalDay(${days})`;
  if (rows[0]?.q.includes(wanted)) return false;
  await client.command({
    // DDL takes no bound parameters; `days` is a validated integer from the configuration and the names
    // are the constants above, not input.
    query: cluster
      ? `ALTER TABLE ${cluster.database}.${table}_local ON CLUSTER ${cluster.cluster} MODIFY ${wanted}`
      : `ALTER TABLE ${table} MODIFY ${wanted}`,
    clickhouse_settings: { materialize_ttl_after_modify: 0 },
  });
  return true;
}
