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
  for (const [i, m] of pending.entries()) {
    for (const statement of m.statements) await client.command({ query: statement });
    // A cluster's existing rows are back-filled by the operator per shard (docs/cluster.md). A rollup
    // that a later pending migration drops is not filled: on an old data folder that would scan every
    // stored row once per superseded rollup (0003's, 0005's) only to throw the result away.
    const droppedLater = new Set(pending.slice(i + 1).flatMap((later) => dropped(later.statements)));
    if (!cluster)
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
 * the view's own SELECT over the whole table, so there is one definition of what a rollup holds.
 * With `onlyIfEmpty` a target that already has rows is left alone (a re-run after a crash adds nothing).
 * Migrations finish before the ingest pipeline inserts anything, so no row is counted twice.
 */
export async function backfill(client: ClickHouseClient, view: MaterializedView, onlyIfEmpty: boolean): Promise<void> {
  if (onlyIfEmpty) {
    const rs = await client.query({ query: `SELECT count() AS n FROM ${view.target}`, format: 'JSONEachRow' });
    if (Number((await rs.json<{ n: number }>())[0]?.n) > 0) return;
  }
  // Names and SELECT come from the migration files, never from input.
  await client.command({ query: `INSERT INTO ${view.target} ${view.select}` });
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
