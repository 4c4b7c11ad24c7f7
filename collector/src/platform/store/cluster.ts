/**
 * ON CLUSTER DDL derived from the single-node migrations (src/platform/store/migrations/*.sql), so a cluster
 * never drifts from what the tests run against: one source of truth, two layouts.
 *
 * Placement rule, decided per table from its own columns:
 * - a table with a `site` column is *sharded*: `NAME_local` is a Replicated*MergeTree on every shard
 *   (`{shard}`/`{replica}` macros) and `NAME` becomes a Distributed table over it with the sharding key
 *   `cityHash64(site)`, so all rows of one site live on one shard (a per-site query touches one shard,
 *   and a materialized view aggregating per site on each shard sees all of that site's rows);
 * - any other table (small registries such as `sites`) is *replicated everywhere*: one replication
 *   group spanning all nodes, same name, read locally.
 * The logical names stay the same, so the collector inserts into and queries `handshakes` unchanged.
 *
 * Materialized views attach to the local source table and write to the local target table: an insert
 * through the Distributed table lands on one shard's local table, whose views fire there.
 * A migration statement of a kind this module does not know is an error, not silently copied: the
 * author of a new migration has to decide what it means on a cluster.
 */
import type { Migration } from './migrate';

export interface ClusterLayout {
  cluster: string;
  database: string;
}

export const SHARDING_KEY = 'cityHash64(site)';
const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

export class ClusterDdlError extends Error {
  override name = 'ClusterDdlError';
}

export function assertIdentifier(kind: string, value: string): void {
  if (!IDENT.test(value) || value.length > 64)
    throw new ClusterDdlError(`${kind} must be an identifier ([A-Za-z_][A-Za-z0-9_]*), got "${value}"`);
}

type Placement = 'sharded' | 'everywhere';

/** What the generator learnt about each table while walking the migrations in order. */
interface Catalog {
  tables: Map<string, Placement>;
  /**
   * The current migration's `EXCHANGE TABLES a AND b`, as b → a: b is a copy of a sorted another way (0030),
   * created, filled from a and swapped in within the migration.
   */
  copies: Map<string, string>;
}

export interface ClusterStatement {
  /** The migration it came from (0 for the preamble). */
  version: number;
  sql: string;
}

const qualified = (l: ClusterLayout, table: string) => `${l.database}.${table}`;
const localName = (table: string) => `${table}_local`;

/** The physical table a statement about `table` must address (the local one for sharded tables). */
function physical(l: ClusterLayout, c: Catalog, table: string): string {
  const p = c.tables.get(table);
  if (!p) throw new ClusterDdlError(`migration refers to table "${table}" before creating it`);
  return qualified(l, p === 'sharded' ? localName(table) : table);
}

const MERGE_TREE_ENGINE = /\bENGINE\s*=\s*(\w*MergeTree)(?:\s*\(([^()]*)\))?/i;

/** The single-node deduplication window means the same thing as the replicated one. */
const settings = (s: string) =>
  s.replace(/\bnon_replicated_deduplication_window\b/g, 'replicated_deduplication_window');

function replicatedEngine(engine: string, args: string | undefined, zkPath: string): string {
  if (/^Replicated/i.test(engine)) throw new ClusterDdlError(`migrations must use single-node engines, got ${engine}`);
  const rest = args?.trim() ? `, ${args.trim()}` : '';
  return `ENGINE = Replicated${engine}('${zkPath}', '{replica}'${rest})`;
}

function createTable(stmt: string, l: ClusterLayout, c: Catalog): string[] {
  const m = /^CREATE\s+TABLE\s+(IF\s+NOT\s+EXISTS\s+)?(\w+)\s*\(/i.exec(stmt);
  if (!m) throw new ClusterDdlError(`cannot read the table name of: ${stmt.slice(0, 80)}`);
  const [head, ifNotExists = '', name] = m as unknown as [string, string | undefined, string];
  const engine = MERGE_TREE_ENGINE.exec(stmt);
  if (!engine)
    throw new ClusterDdlError(
      `table "${name}" has no MergeTree-family engine; decide its cluster layout in platform/store/cluster.ts`,
    );
  const body = stmt.slice(head.length);
  const sharded = /(^|[\s(,])site\s+\w/.test(body.slice(0, engine.index - head.length));
  const placement: Placement = sharded ? 'sharded' : 'everywhere';
  c.tables.set(name, placement);
  const ine = ifNotExists ? 'IF NOT EXISTS ' : '';
  const on = `ON CLUSTER ${l.cluster}`;
  // A copy swapped in for another table keeps its replication path under the other's name: `{uuid}` (the
  // table's own, the same on every node of an ON CLUSTER statement) makes each copy's path new, so the
  // migration can run again after it (or the script be applied twice) without meeting its earlier copy there.
  const unique = c.copies.has(name) ? '/{uuid}' : '';
  if (placement === 'everywhere') {
    const engineSql = replicatedEngine(engine[1]!, engine[2], `/clickhouse/tables/all/${l.database}/${name}${unique}`);
    const tail = settings(stmt.slice(head.length - 1).replace(MERGE_TREE_ENGINE, engineSql));
    return [`CREATE TABLE ${ine}${qualified(l, name)} ${on}\n${tail}`];
  }
  const local = localName(name);
  const engineSql = replicatedEngine(
    engine[1]!,
    engine[2],
    `/clickhouse/tables/{shard}/${l.database}/${local}${unique}`,
  );
  const tail = settings(stmt.slice(head.length - 1).replace(MERGE_TREE_ENGINE, engineSql));
  return [
    `CREATE TABLE ${ine}${qualified(l, local)} ${on}\n${tail}`,
    `CREATE TABLE ${ine}${qualified(l, name)} ${on} AS ${qualified(l, local)}\nENGINE = Distributed(${l.cluster}, ${l.database}, ${local}, ${SHARDING_KEY})`,
  ];
}

/** A table read by a query: the name after FROM or JOIN (not a table function's call). */
const SOURCE = /\b(FROM|JOIN)\s+(\w+)\b(?!\s*\()/gi;

/** The names of the tables a query reads (known or not). */
const sourceTables = (sql: string): string[] => [...sql.matchAll(SOURCE)].map((x) => x[2]!);

/** Each table reference of a known table rewritten to `to(table)`. */
function rewriteSources(sql: string, c: Catalog, to: (table: string) => string): string {
  return sql.replace(SOURCE, (all, kw: string, t: string) => (c.tables.has(t) ? `${kw} ${to(t)}` : all));
}

function createMaterializedView(stmt: string, l: ClusterLayout, c: Catalog): string[] {
  const m = /^CREATE\s+MATERIALIZED\s+VIEW\s+(IF\s+NOT\s+EXISTS\s+)?(\w+)\s+TO\s+(\w+)(\s*\([^)]*\))?\s+AS\s+/is.exec(
    stmt,
  );
  if (!m) throw new ClusterDdlError(`materialized views must name their target (TO table): ${stmt.slice(0, 80)}`);
  const [head, ine = '', name, target, columns = ''] = m as unknown as [
    string,
    string | undefined,
    string,
    string,
    string | undefined,
  ];
  const sources = sourceTables(stmt.slice(head.length)).filter((t) => c.tables.has(t));
  const targetPlacement = c.tables.get(target);
  if (!targetPlacement) throw new ClusterDdlError(`materialized view "${name}" writes to unknown table "${target}"`);
  if (sources.some((s) => c.tables.get(s) !== targetPlacement)) {
    throw new ClusterDdlError(`materialized view "${name}" mixes sharded and replicated-everywhere tables`);
  }
  // A view's query reads the physical tables: the local ones of sharded tables.
  const select = rewriteSources(stmt.slice(head.length), c, (t) => physical(l, c, t));
  return [
    `CREATE MATERIALIZED VIEW ${ine ? 'IF NOT EXISTS ' : ''}${qualified(l, name)} ON CLUSTER ${l.cluster} TO ${physical(l, c, target)}${columns}\nAS ${select}`,
  ];
}

/** `MODIFY COLUMN a CODEC(…), MODIFY COLUMN b CODEC(…)`: how a column is compressed, nothing else. */
function changesCodecsOnly(commands: string): boolean {
  // Nested parentheses (`CODEC(ZSTD(3))`) collapse first, so that the commas left separate commands.
  let flat = commands;
  while (/\([^()]*\)/.test(flat)) flat = flat.replace(/\([^()]*\)/g, '');
  return flat.split(',').every((command) => /^\s*MODIFY\s+COLUMN\s+\w+\s+CODEC\s*$/i.test(command));
}

function alterTable(stmt: string, l: ClusterLayout, c: Catalog): string[] {
  const m = /^ALTER\s+TABLE\s+(\w+)\s+/i.exec(stmt);
  if (!m) throw new ClusterDdlError(`cannot read the table name of: ${stmt.slice(0, 80)}`);
  const table = m[1]!;
  const rest = settings(stmt.slice(m[0].length));
  const out = [`ALTER TABLE ${physical(l, c, table)} ON CLUSTER ${l.cluster} ${rest}`];
  // A Distributed table has its own column list: column changes apply to it too, storage changes (a
  // codec, which it has no data to apply to) do not.
  if (
    c.tables.get(table) === 'sharded' &&
    /^(ADD|DROP|MODIFY|RENAME|COMMENT)\s+COLUMN\b/i.test(rest) &&
    !changesCodecsOnly(rest)
  ) {
    out.push(`ALTER TABLE ${qualified(l, table)} ON CLUSTER ${l.cluster} ${rest}`);
  }
  return out;
}

function dropStatement(stmt: string, l: ClusterLayout, c: Catalog): string[] {
  const m =
    /^DROP\s+(TABLE|VIEW)\s+(IF\s+EXISTS\s+)?(\w+)(\s+SETTINGS\s+\w+\s*=\s*\w+(?:\s*,\s*\w+\s*=\s*\w+)*)?\s*$/i.exec(
      stmt,
    );
  if (!m) throw new ClusterDdlError(`cannot read: ${stmt.slice(0, 80)}`);
  const [, kind, ie = '', name, settings = ''] = m as unknown as [string, string, string | undefined, string, string?];
  const ifExists = ie ? 'IF EXISTS ' : '';
  const placement = c.tables.get(name);
  c.tables.delete(name);
  // A table not created yet at this point of the migrations (a copy dropped before it is made afresh, 0030)
  // may exist from an earlier run in either layout: IF EXISTS drops whichever does.
  const earlierCopy = !placement && ie && /^TABLE$/i.test(kind!);
  const names = placement === 'sharded' || earlierCopy ? [name, localName(name)] : [name];
  // The statement's settings (0030 lifts the size limit on dropping its copy) apply on every node.
  return names.map(
    (n) => `DROP ${kind!.toUpperCase()} ${ifExists}${qualified(l, n)} ON CLUSTER ${l.cluster} SYNC${settings}`,
  );
}

/**
 * `INSERT INTO t … SELECT … FROM t`: rows of a rollup derived from its own rows (0024 adds to each group of
 * every site together the count of the sites its per-site rows hold; 0027 derives cuts from a finer one).
 * Through the Distributed table it reads every shard's rows and its added rows merge with every shard's at
 * query time (aggregate states), so it is the same statement, run once. Any other INSERT … SELECT is a
 * back-fill from the raw rows: a new cluster has none, and an existing one is back-filled by the operator on
 * each shard's local tables (docs/cluster.md).
 */
function insertSelect(stmt: string, l: ClusterLayout, c: Catalog): string[] {
  const m = /^INSERT\s+INTO\s+(\w+)\b/i.exec(stmt);
  const sources = sourceTables(stmt);
  if (m && sources.length === 1 && c.copies.get(m[1]!) === sources[0]) return copyInto(stmt, m[1]!, sources[0]!, l, c);
  if (!m || sources.length === 0 || sources.some((t) => t !== m[1]) || c.tables.get(m[1]!) !== 'sharded') return [];
  const table = qualified(l, m[1]!);
  return [rewriteSources(stmt.replace(/^INSERT\s+INTO\s+\w+/i, `INSERT INTO ${table}`), c, () => table)];
}

/**
 * `INSERT INTO b SELECT * FROM a` where b is a's copy sorted another way (0030): through the Distributed
 * tables, once, rows as they are (a row keeps its site, so its shard; the rows of every site together
 * go to one shard, which query time merges with every shard's as before). The insert waits for every shard:
 * the exchange after it must not swap in a copy still on its way.
 */
function copyInto(stmt: string, copy: string, table: string, l: ClusterLayout, c: Catalog): string[] {
  const m = /^INSERT\s+INTO\s+\w+\s+(SELECT\s+\*\s+FROM\s+)\w+\s*$/i.exec(stmt);
  if (!m) throw new ClusterDdlError(`a copy is filled with SELECT * of its table only: ${stmt.slice(0, 80)}`);
  if (c.tables.get(copy) !== c.tables.get(table))
    throw new ClusterDdlError(`"${copy}" is not laid out as "${table}", which it copies`);
  return [`INSERT INTO ${qualified(l, copy)} SETTINGS insert_distributed_sync = 1 ${m[1]}${qualified(l, table)}`];
}

const EXCHANGE = /^EXCHANGE\s+TABLES\s+(\w+)\s+AND\s+(\w+)\s*$/i;

/** `EXCHANGE TABLES a AND b`: the tables (the local ones of sharded tables) swap names on every node. */
function exchangeTables(stmt: string, l: ClusterLayout, c: Catalog): string[] {
  const m = EXCHANGE.exec(stmt);
  if (!m) throw new ClusterDdlError(`cannot read: ${stmt.slice(0, 80)}`);
  const [, a, b] = m as unknown as [string, string, string];
  if (c.tables.get(a) !== c.tables.get(b))
    throw new ClusterDdlError(`"${a}" and "${b}" are not laid out alike; they cannot be exchanged`);
  // A Distributed table reads its local table by name: after the swap it reads the other's rows.
  return [`EXCHANGE TABLES ${physical(l, c, a)} AND ${physical(l, c, b)} ON CLUSTER ${l.cluster}`];
}

/** The copies a migration swaps in (`EXCHANGE TABLES a AND b`), as b → a. */
function copiesOf(statements: string[]): Map<string, string> {
  return new Map(
    statements.flatMap((s) => {
      const m = EXCHANGE.exec(s);
      return m ? [[m[2]!, m[1]!] as const] : [];
    }),
  );
}

/** One single-node statement → the statements that do the same on the cluster. */
function translate(stmt: string, l: ClusterLayout, c: Catalog): string[] {
  if (/^CREATE\s+TABLE\b/i.test(stmt)) return createTable(stmt, l, c);
  if (/^CREATE\s+MATERIALIZED\s+VIEW\b/i.test(stmt)) return createMaterializedView(stmt, l, c);
  if (/^ALTER\s+TABLE\b/i.test(stmt)) return alterTable(stmt, l, c);
  if (/^DROP\s+(TABLE|VIEW)\b/i.test(stmt)) return dropStatement(stmt, l, c);
  if (/^INSERT\s+INTO\b/i.test(stmt)) return insertSelect(stmt, l, c);
  if (/^EXCHANGE\s+TABLES\b/i.test(stmt)) return exchangeTables(stmt, l, c);
  throw new ClusterDdlError(`no cluster translation for: ${stmt.slice(0, 80)}`);
}

export function schemaMigrationsDdl(l: ClusterLayout): string {
  return `CREATE TABLE IF NOT EXISTS ${qualified(l, 'schema_migrations')} ON CLUSTER ${l.cluster}
(version UInt32, name String, appliedAt DateTime('UTC') DEFAULT now())
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/all/${l.database}/schema_migrations', '{replica}') ORDER BY version`;
}

/** The whole cluster schema, migration by migration, with the preamble (database, migration log). */
export function clusterStatements(migrations: Migration[], layout: ClusterLayout): ClusterStatement[] {
  assertIdentifier('cluster name', layout.cluster);
  assertIdentifier('database', layout.database);
  const catalog: Catalog = { tables: new Map(), copies: new Map() };
  const out: ClusterStatement[] = [
    { version: 0, sql: `CREATE DATABASE IF NOT EXISTS ${layout.database} ON CLUSTER ${layout.cluster}` },
    { version: 0, sql: schemaMigrationsDdl(layout) },
  ];
  for (const m of migrations) {
    catalog.copies = copiesOf(m.statements);
    for (const s of m.statements)
      for (const sql of translate(s, layout, catalog)) out.push({ version: m.version, sql });
  }
  return out;
}

/** Cluster migrations in the shape `migrate()` applies (the preamble is created by `migrate` itself). */
export function clusterMigrations(migrations: Migration[], layout: ClusterLayout): Migration[] {
  const stmts = clusterStatements(migrations, layout);
  return migrations.map((m) => ({ ...m, statements: stmts.filter((s) => s.version === m.version).map((s) => s.sql) }));
}

/** A script for clickhouse-client --multiquery: every statement, `;`-terminated, with a header. */
export function printClusterScript(migrations: Migration[], layout: ClusterLayout): string {
  const lines = [
    `-- tlsrum schema for cluster "${layout.cluster}", database "${layout.database}" (generated from ${migrations.length} migrations).`,
    '-- Apply with: clickhouse-client --multiquery < this-file   (every statement is idempotent). See docs/cluster.md.',
    '',
  ];
  let version = -1;
  for (const s of clusterStatements(migrations, layout)) {
    if (s.version !== version) {
      version = s.version;
      const m = migrations.find((x) => x.version === version);
      lines.push(m ? `-- ${String(m.version).padStart(4, '0')}_${m.name}` : '-- database and migration log');
    }
    lines.push(`${s.sql};`, '');
  }
  const done = migrations.map((m) => `(${m.version}, '${m.name}')`).join(', ');
  if (done)
    lines.push(
      '-- record the migrations as applied',
      `INSERT INTO ${layout.database}.schema_migrations (version, name) VALUES ${done};`,
      '',
    );
  return lines.join('\n');
}
