/**
 * Writes one month's dataset: `DIR/tlsrum-YYYY-MM.parquet`, `DIR/tlsrum-YYYY-MM.csv` (the same rows in the
 * same order) and `DIR/README.md`. The store computes everything and writes both files itself (Parquet and
 * CSV output formats through `@clickhouse/client`'s `exec`, which hands back the raw bytes).
 *
 * Deterministic: the same month of the same store gives byte-identical files — every aggregate is exact
 * (uniqExact, quantileExact, bucket counts), rows are ordered by every key column, Parquet is encoded on one
 * thread in one row group, and neither file holds a time of export.
 *
 * Nothing half-written: the files are written under temporary names in DIR and renamed once all three
 * exist; on any failure the temporary files (and DIR, when this export made it) are removed.
 */
import { createHash } from 'node:crypto';
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { ClickHouseClient } from '@clickhouse/client';
import { DIMENSION_SQL } from '../query/dimensions';
import { COUNTED } from '../query/counted';
import { DATASET_COLUMNS, KEY_COLUMNS } from './columns';
import { checkExportable, DatasetError, parseMonth, type MonthRange } from './month';
import { LEVELS, planRows, type CountGroups } from './plan';
import { datasetReadme, type EvidenceShares } from './readme';

export { DatasetError };

export const fileNames = (month: string) => ({
  parquet: `tlsrum-${month}.parquet`,
  csv: `tlsrum-${month}.csv`,
  readme: 'README.md',
});
const partial = (name: string) => `.${name}.partial`;

export interface ExportOptions {
  month: string;
  outDir: string;
  minClients: number;
  /** The store's RETENTION_DAYS: a month partly deleted is refused. */
  retentionDays: number;
  /** CLIENT_RECORDS_PER_CELL_DAY, for the README. */
  clientCap: number;
  /** Who publishes it (OPERATOR_NAME), for the README's attribution. */
  publisher?: string | null;
  now?: number;
}

export interface DatasetExport {
  month: string;
  rows: number;
  records: number;
  files: { parquet: string; csv: string; readme: string };
  bytes: { parquet: number; csv: number };
  sha256: { parquet: string; csv: string };
}

/**
 * The month's counted records: real users' (`source = 'rum'`: no lab or synthetic runs), plausible and
 * within the per-client cap (queries/counted.ts), with the dataset's keys computed by the query
 * catalogue's own expressions. Names are prefixed `r_` so the output columns can reuse the plain names.
 */
const BASE = `SELECT
    country AS r_country,
    browser AS r_browser,
    protocol AS r_protocol,
    ${DIMENSION_SQL.tlsVersion.raw} AS r_tls_version,
    ${DIMENSION_SQL.mode.raw} AS r_mode,
    ${DIMENSION_SQL.pq.raw} AS r_kx,
    clientToken AS r_client,
    tls AS r_tls,
    connect AS r_connect,
    ttfb AS r_ttfb,
    tlsVersionSource AS r_version_source,
    resumedSource AS r_resumed_source
  FROM handshakes
  WHERE ts >= fromUnixTimestamp64Milli(toInt64({from:Int64}), 'UTC') AND ts < fromUnixTimestamp64Milli(toInt64({to:Int64}), 'UTC')
    AND source = 'rum' AND ${COUNTED}`;

/**
 * The export reads a whole month of records once a month, in the background: its queries get a time limit of
 * their own instead of the read side's (QUERY_TIMEOUT_MS, seconds, meant for a page's query), which the
 * planning queries of a month of about 50 M counted records would reach on a 2-core machine (3.4 s at 5.9 M).
 */
export const EXPORT_QUERY_LIMIT_S = 1800;
const LIMITS = { max_execution_time: EXPORT_QUERY_LIMIT_S };

/** A base row's group key at a level, as plan.ts's groupKey makes it. */
function groupKeySql(level: number): string {
  const l = LEVELS[level]!;
  return `concatWithSeparator('|', r_country, ${l.browser ? 'r_browser' : "'*'"}, r_protocol, r_tls_version, r_mode, ${l.keyExchange ? 'r_kx' : "'*'"})`;
}
const inLevel = (level: number) => `${groupKeySql(level)} IN (SELECT arrayJoin({level${level}:Array(String)}))`;
const levelParams = (published: readonly (readonly string[])[]) =>
  Object.fromEntries(published.map((keys, i) => [`level${i}`, [...keys]]));

/** The base rows with the level of the row each is in (LEVELS.length: none). */
const withLevel = (published: readonly (readonly string[])[]) =>
  `SELECT *, multiIf(${published.map((_, i) => `${inLevel(i)}, ${i}`).join(', ')}, ${published.length}) AS level FROM (${BASE})`;

/** CountGroups on the store. */
const countInStore =
  (client: ClickHouseClient, range: MonthRange): CountGroups =>
  async (level, taken, threshold) => {
    const free = taken.map((_, i) => `NOT ${inLevel(i)}`).join(' AND ') || '1';
    const rs = await client.query({
      query: `SELECT ${groupKeySql(level)} AS k FROM (${BASE}) WHERE ${free} GROUP BY k HAVING uniqExact(r_client) >= {threshold:UInt64}`,
      clickhouse_settings: LIMITS,
      query_params: { from: range.from, to: range.to, threshold, ...levelParams(taken) },
      format: 'JSONEachRow',
    });
    return (await rs.json<{ k: string }>()).map((r) => r.k);
  };

/** The dataset's SELECT: one row per published group, every column of columns.ts, ordered by the keys. */
function datasetSql(published: readonly (readonly string[])[]): string {
  return `SELECT
  ${DATASET_COLUMNS.map((c) => `CAST(${c.sql} AS ${c.type}) AS ${c.name}`).join(',\n  ')}
FROM (${withLevel(published)})
WHERE level < ${published.length}
GROUP BY ${KEY_COLUMNS.filter((c) => c.name !== 'month')
    .map((c) => c.sql)
    .join(', ')}
HAVING clients >= {threshold:UInt64}
ORDER BY ${KEY_COLUMNS.map((c) => c.name).join(', ')}`;
}

/** Parquet as every reader takes it, encoded the same way each time (one thread, one row group). */
const PARQUET_SETTINGS =
  "output_format_parquet_compression_method = 'zstd', output_format_parquet_row_group_size = 100000000, output_format_parquet_parallel_encoding = 0, output_format_parquet_string_as_string = 1";

async function evidenceShares(
  client: ClickHouseClient,
  range: MonthRange,
  published: readonly (readonly string[])[],
  threshold: number,
): Promise<EvidenceShares> {
  const of = async (column: string) => {
    const rs = await client.query({
      query: `SELECT ${column} AS source, count() AS records, uniqExact(r_client) AS clients FROM (${withLevel(published)}) WHERE level < ${published.length} GROUP BY source ORDER BY source`,
      clickhouse_settings: LIMITS,
      query_params: { from: range.from, to: range.to, ...levelParams(published) },
      format: 'JSONEachRow',
    });
    const rows = await rs.json<{ source: string; records: number; clients: number }>();
    const total = rows.reduce((s, r) => s + Number(r.records), 0);
    // A share of a group under the threshold would be a count of it (share × the rows' total): left out.
    return Object.fromEntries(
      rows.map((r) => [r.source, Number(r.clients) >= threshold ? Number(r.records) / total : null]),
    );
  };
  return { tlsVersion: await of('r_version_source'), resumed: await of('r_resumed_source') };
}

/** Refuses an out folder holding anything but this month's files (or their leftovers from a failed export). */
function checkOutDir(dir: string, month: string): void {
  if (!existsSync(dir)) return;
  if (!statSync(dir).isDirectory())
    throw new DatasetError(`${dir} exists and is not a folder: choose a new or empty folder for --out`);
  const ours = new Set(Object.values(fileNames(month)).flatMap((n) => [n, partial(n)]));
  const others = readdirSync(dir).filter((n) => !ours.has(n));
  if (others.length) {
    const shown = others.slice(0, 3).join(', ') + (others.length > 3 ? ', …' : '');
    throw new DatasetError(`${dir} already holds other files (${shown}): choose a new or empty folder for --out`);
  }
}

const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

export async function exportMonth(client: ClickHouseClient, opts: ExportOptions): Promise<DatasetExport> {
  const range = parseMonth(opts.month);
  checkExportable(range, opts.now ?? Date.now(), opts.retentionDays);
  checkOutDir(opts.outDir, range.month);
  const exists = await (
    await client.query({ query: 'EXISTS TABLE handshakes', format: 'JSONEachRow' })
  ).json<{ result: number }>();
  if (!Number(exists[0]?.result))
    throw new DatasetError('the store has no records table: is DATA_DIR (or CLICKHOUSE_URL) the collector’s store?');
  const counted = await (
    await client.query({
      query: `SELECT count() AS n FROM (${BASE})`,
      clickhouse_settings: LIMITS,
      query_params: { from: range.from, to: range.to },
      format: 'JSONEachRow',
    })
  ).json<{ n: number }>();
  if (!Number(counted[0]?.n)) {
    throw new DatasetError(
      `no records of ${range.month} in the store (from real users, plausible, within the per-client cap): nothing to export`,
    );
  }
  const published = await planRows(countInStore(client, range), opts.minClients);
  if (published.every((l) => l.length === 0)) {
    throw new DatasetError(
      `no row of ${range.month} reaches DATASET_MIN_CLIENTS = ${opts.minClients} distinct clients: nothing can be published`,
    );
  }
  const evidence = await evidenceShares(client, range, published, opts.minClients);

  const names = fileNames(range.month);
  const created = !existsSync(opts.outDir);
  mkdirSync(opts.outDir, { recursive: true });
  const temp = {
    parquet: join(opts.outDir, partial(names.parquet)),
    csv: join(opts.outDir, partial(names.csv)),
    readme: join(opts.outDir, partial(names.readme)),
  };
  const final = {
    parquet: join(opts.outDir, names.parquet),
    csv: join(opts.outDir, names.csv),
    readme: join(opts.outDir, names.readme),
  };
  const params = {
    month: range.month,
    from: range.from,
    to: range.to,
    threshold: opts.minClients,
    ...levelParams(published),
  };
  try {
    const sql = datasetSql(published);
    const write = async (format: string, path: string) => {
      const { stream } = await client.exec({
        query: `${sql}\nSETTINGS ${PARQUET_SETTINGS}\nFORMAT ${format}`,
        clickhouse_settings: LIMITS,
        query_params: params,
      });
      await pipeline(stream, createWriteStream(path));
    };
    await write('Parquet', temp.parquet);
    await write('CSVWithNames', temp.csv);
    const totals = await (
      await client.query({
        query: `SELECT count() AS rows, sum(records) AS records FROM (${sql})`,
        clickhouse_settings: LIMITS,
        query_params: params,
        format: 'JSONEachRow',
      })
    ).json<{
      rows: number;
      records: number;
    }>();
    const rows = Number(totals[0]?.rows);
    const records = Number(totals[0]?.records);
    const sums = { parquet: sha256(temp.parquet), csv: sha256(temp.csv) };
    const bytes = { parquet: statSync(temp.parquet).size, csv: statSync(temp.csv).size };
    writeFileSync(
      temp.readme,
      datasetReadme({
        month: range.month,
        rows,
        records,
        files: names,
        sha256: sums,
        bytes,
        minClients: opts.minClients,
        clientCap: opts.clientCap,
        evidence,
        publisher: opts.publisher ?? null,
      }),
    );
    renameSync(temp.parquet, final.parquet);
    renameSync(temp.csv, final.csv);
    renameSync(temp.readme, final.readme);
    return { month: range.month, rows, records, files: final, bytes, sha256: sums };
  } catch (err) {
    for (const p of Object.values(temp)) rmSync(p, { force: true });
    if (created && readdirSync(opts.outDir).length === 0) rmdirSync(opts.outDir);
    throw err;
  }
}
