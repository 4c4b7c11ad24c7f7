/**
 * The one cell builder behind every query of the API: group the records matching the filters by some
 * dimensions (and optionally a time bucket), compute the metrics per group, suppress small groups.
 *
 * SQL text is assembled only from the fixed expressions of this file and dimensions.ts; every value from
 * a request travels as a bound parameter (`{name:Type}`). The same metrics come from the raw table or
 * from a rollup (mergeable states): the raw table for short ranges, the rollup for long ones, and within
 * the rollups the smallest one that holds the query's dimensions (sources.ts).
 */
import type { ClickHouseClient } from '@clickhouse/client';
import { VALUE_FILTERS, widenedRange, type ValueFilterName } from '@tlsrum/shared/query';
import type { Cell, Quantiles } from '@tlsrum/shared/query/schemas';
import { dimensionSql, filterDimension, MIXES, type Dimension, type MixName, type Table } from './dimensions';
import { JOINT_COLUMNS, jointComboSql, MIX_VALUES, protectMix, type JointCells } from './mix-protection';
import { ALL_PHASES, HANDSHAKE_PHASES, type Phase } from './percentiles';
import { cappedPerCell, countedRows } from './counted';
import { chooseReadTable, RAW, rangeColumn, type ReadTable, type ReadTableNeeds } from './sources';
import { heavyWhen } from '../platform/store/query-pool';

export type { Cell, Quantiles };

/** The catalogue's value filters (source, browser, country, …): absent means any value. */
export type ValueFilters = Partial<Record<ValueFilterName, string>>;

export interface Filters extends ValueFilters {
  /** epoch ms, inclusive / exclusive */
  from: number;
  to: number;
  /** One registered site, or null for every site (unregistered ones included). */
  site: string | null;
  /** Records of one client token counted per cell and day at most (0: no cap; counted.ts): K of the hourly cells' read-time cap (days: the marks made at ingest). */
  clientCap: number;
  /**
   * The k-sites rule of answers without a token (MIN_SITES_PER_CELL; 1 or absent: off): a cell holding
   * records of a registered site is shown only when it holds records of at least this many of them.
   */
  minSites?: number;
  /**
   * The site owner's own synthetic runs (the site's read token asking for source=synthetic): only the rows
   * ingest marked as sent with that token (`owner = 1`, migration 0014), from the raw table, with no
   * people threshold and no per-client cap — no person is in them (docs/integrity.md).
   */
  ownSynthetic?: boolean;
}

/** `counts`: records and clients only (the joint cells behind a handshake cell's mixes). */
export type MetricSet = 'handshake' | 'phases' | 'counts';

/** The phases whose percentiles a metric set shows: every phase, the handshake's, or none (counts only). */
const phasesOf = (metrics: MetricSet): readonly Phase[] =>
  metrics === 'phases' ? ALL_PHASES : metrics === 'handshake' ? HANDSHAKE_PHASES : [];
export type Bucket = 'hour' | 'day';

/**
 * The most groups each cell route answers (`truncated` says when there were more). About 250 countries
 * exist: the map's limit is never why a country is missing.
 */
export const MAX_CELLS = { compare: 2000, phases: 2000, map: 300, timeseries: 20_000 } as const;

export interface CellQuery {
  table: Table;
  filters: Filters;
  dimensions: readonly Dimension[];
  bucket?: Bucket;
  metrics: MetricSet;
  /** Most groups answered; one more is fetched to tell the caller the answer was cut (Infinity: every group). */
  limit: number;
  /** Rows in any order (default: by time bucket, then dimensions). */
  unordered?: boolean;
}

/** Cells, whether the limit cut them, and the table actually read (a rollup without the dimensions falls back to raw). */
export interface CellAnswer {
  cells: Cell[];
  truncated: boolean;
  table: Table;
}

/** Distinct registered sites of a group's rows: a per-site source's `site` column ('' = unregistered). */
const SITES_SQL = "uniqExactIf(site, site != '')";

/** The same from the `sites` states of a cut of every site together (migration 0024): exact below this cap, then "this many or more". */
export const ROLLUP_SITES_CAP = 100;
const ROLLUP_SITES = `uniqUpToMerge(${ROLLUP_SITES_CAP - 1})(sites)`;

/** The k-sites rule applies: every site together, asked without a token, with a threshold above 1. */
export const spansSites = (f: Pick<Filters, 'site' | 'minSites'>): boolean => f.site === null && (f.minSites ?? 1) > 1;

/**
 * The k-sites rule: a group holding records of some registered site but of fewer than `minSites` of them
 * is one site's (or a few sites') own figures; without a token it is suppressed like a small cell.
 */
export const fewSites = (sites: number, minSites: number): boolean => sites > 0 && sites < minSites;

export function buildCellSql(
  q: CellQuery,
  minClients: number,
): { sql: string; params: Record<string, string | number>; readTable: ReadTable } {
  const filters = VALUE_FILTERS.filter((f) => q.filters[f] !== undefined);
  const spanSites = spansSites(q.filters);
  const needs: ReadTableNeeds = {
    table: q.table,
    dimensions: q.dimensions,
    filters: filters.map(filterDimension),
    site: q.filters.site,
    bucket: q.bucket,
    from: q.filters.from,
    to: q.filters.to,
    minClients,
    ownSynthetic: q.filters.ownSynthetic,
    phases: phasesOf(q.metrics),
  };
  const perSite = chooseReadTable({ ...needs, perSite: spanSites });
  // The k-sites count needs the sites behind each group. On the larger rollups the cells' metrics come from
  // the cut of every site together (a fraction of the per-site cut's rows, and merging their histograms is
  // most of a query's work), whose rows count their sites (`siteCounts`); a threshold above what they count
  // up to joins the per-site cut instead, reading only its key columns for each group's count of sites. A cut
  // of every site that has no per-site twin (the hourly crypto cuts) answers only where its own count does.
  const allSites = spanSites && !perSite.few ? chooseReadTable(needs) : null;
  const countsSites = (t: ReadTable) => t.siteCounts === true && (q.filters.minSites ?? 1) <= ROLLUP_SITES_CAP;
  const src = allSites && allSites !== RAW && (perSite !== RAW || countsSites(allSites)) ? allSites : perSite;
  const sitesInRows = src !== perSite && countsSites(src);
  const sitesApart = src !== perSite && !sitesInRows;
  const own = q.filters.ownSynthetic === true;
  const a = src.agg;
  const keys = groupKeysSql(q, src);
  // Output names never equal a column name: in the rollup `sum(records) AS records` would nest aggregates.
  const metrics = [`${a.records} AS n_records`, `${a.clients} AS n_clients`];
  // Registered sites behind the cell (unregistered records have site ''): the k-sites rule's count.
  if (spanSites && !sitesApart) metrics.push(`${sitesInRows ? ROLLUP_SITES : SITES_SQL} AS n_sites`);
  for (const p of phasesOf(q.metrics)) metrics.push(`${a.quantiles(p)} AS q_${p}`);
  // A handshake cell's mixes come from its joint cells (jointMixCells), which protect its small sub-groups.
  if (q.metrics === 'handshake') metrics.push(`${a.evidenced} AS n_evidenced`, `${a.inferred} AS n_inferred`);

  const params: Record<string, string | number> = {};
  const where = conditions(q, src, filters, params);
  if (own) {
    // Only what the site's token sent, and only for that site: the owner's view is never anyone else's records.
    if (q.filters.site === null) throw new Error("the owner's own runs are read for one site only");
    where.push('owner = 1');
  }
  if (Number.isFinite(q.limit)) params.limit = q.limit + 1;

  const groupKeys = [...(q.bucket ? ['t'] : []), ...q.dimensions.map((d) => `d_${d}`)];
  const grouped = (select: string[], from: string[]) =>
    [`SELECT ${select.join(',\n  ')}`, ...from, groupKeys.length ? `GROUP BY ${groupKeys.join(', ')}` : '']
      .filter(Boolean)
      .join('\n');
  // The raw table's rows go through the per-client cap (counted.ts): for whole days, the rows ingest did
  // not mark (as the rollups count them); hourly cells cap per their own cells at read time.
  const reads = [...keys, ...metrics].join(', ');
  const cellKeys = [
    'toStartOfInterval(ts, INTERVAL 1 HOUR)',
    ...q.dimensions.map((d) => dimensionSql(d, src.expressions)),
  ];
  // The owner's own runs are one client's by nature: no per-client cap (a cap of 0), plausible rows only.
  const raw =
    q.bucket === 'hour' || own
      ? cappedPerCell(where.join(' AND '), cellKeys, own ? 0 : q.filters.clientCap, reads, {
          from: q.filters.from,
          to: q.filters.to,
        })
      : countedRows(where.join(' AND '), reads);
  const from = src.grain === 'ms' ? [`FROM ${raw}`] : [`FROM ${src.table}`, `WHERE ${where.join(' AND ')}`];
  let cells = grouped([...keys, ...metrics], from);
  if (sitesApart) {
    // The same rows grouped the same way (both cuts come from one view's grouping sets), one site each.
    const siteWhere = conditions(q, perSite, filters, params);
    const sites = grouped(
      [...groupKeysSql(q, perSite), `${SITES_SQL} AS n_sites`],
      [`FROM ${perSite.table}`, `WHERE ${siteWhere.join(' AND ')}`],
    );
    cells = `SELECT * FROM (\n${cells}\n) AS cells\n${
      groupKeys.length ? 'LEFT JOIN' : 'CROSS JOIN'
    } (\n${sites}\n) AS sites${groupKeys.length ? ` USING (${groupKeys.join(', ')})` : ''}`;
  }
  // Unordered: for a caller that sums the rows again (the joint cells, jointMixSql); sorting tens of thousands
  // of rows by their text keys costs more than reading them.
  const order = groupKeys.length && !q.unordered ? `ORDER BY ${groupKeys.join(', ')}` : '';
  const limit = Number.isFinite(q.limit) ? 'LIMIT {limit:UInt32}' : '';
  const sql = [cells, order, limit].filter(Boolean).join('\n');
  return { sql, params, readTable: src };
}

/** The query's group keys as read from `src`: its time bucket (`t`) if any, then each dimension (`d_…`). */
function groupKeysSql(q: CellQuery, src: ReadTable): string[] {
  const keys = q.dimensions.map((d) => `${dimensionSql(d, src.expressions)} AS d_${d}`);
  // An hourly bucket of a rollup cut reads its hour column (chooseReadTable picked a cut that has one).
  const bucketTime = q.bucket === 'hour' ? src.hourTime! : src.time;
  if (q.bucket)
    keys.unshift(
      `toUnixTimestamp(toStartOfInterval(${bucketTime}, INTERVAL 1 ${q.bucket === 'hour' ? 'HOUR' : 'DAY'})) * 1000 AS t`,
    );
  return keys;
}

/** The conditions selecting the query's rows in `src` (its cut, the range, the site, the filters); their values go into `params`. */
function conditions(
  q: CellQuery,
  src: ReadTable,
  filters: readonly ValueFilterName[],
  params: Record<string, string | number>,
): string[] {
  const where: string[] = src.where ? [src.where] : [];
  if (src.grain === 'ms') {
    where.push('ts >= fromUnixTimestamp64Milli({from:Int64})', 'ts < fromUnixTimestamp64Milli({to:Int64})');
    params.from = q.filters.from;
    params.to = q.filters.to;
  } else {
    // The rollups answer whole hours: chooseReadTable reads them only for a range aligned to them (see
    // chooseTable), on an hour column unless the range is whole days.
    const time = rangeColumn(src, q.filters.from, q.filters.to);
    where.push(`${time} >= toDateTime({fromS:Int64}, 'UTC')`, `${time} < toDateTime({toS:Int64}, 'UTC')`);
    params.fromS = Math.floor(q.filters.from / 1000);
    params.toS = Math.floor(q.filters.to / 1000);
  }
  // A cut of every site together has no site column to filter on (chooseReadTable picked it for site = null).
  if (src.sites !== 'all' && q.filters.site !== null) {
    where.push('site = {site:String}');
    params.site = q.filters.site;
  }
  // A filter's column is its dimension's expression in the table read (the catalogue's names are identifiers).
  for (const f of filters) {
    where.push(`${dimensionSql(filterDimension(f), src.expressions)} = {${f}:String}`);
    params[f] = q.filters[f]!;
  }
  return where;
}

const DAY = 86_400_000;
type Row = Record<string, unknown>;

const round1 = (x: number) => Math.round(x * 10) / 10;
const share = (n: number, total: number) => (total > 0 ? Math.round((n / total) * 10_000) / 10_000 : 0);
const quantiles = (v: unknown): Quantiles => {
  const q = v as number[];
  return { p50: round1(Number(q[0])), p75: round1(Number(q[1])), p95: round1(Number(q[2])) };
};

/**
 * A result row → a cell, or a suppressed cell (keys only) below the distinct-client threshold. A table
 * whose client count stops at a cap (the rollup) marks a count at the cap as a lower bound.
 */
/** What a cell's few-clients test knows of the per-client cap: K per cell and day, over at most `days` days per token. */
export interface CapBound {
  k: number;
  days: number;
}

/**
 * Few people behind a cell: under twice the suppression threshold, or — where the cap is exact per query cell
 * (the raw table; the rollup caps per finer cell, see docs/integrity.md) — its 3 heaviest tokens could hold
 * half its records. Each holds at most K × days, and every other client at least one record.
 */
export function fewClients(records: number, clients: number, minClients: number, cap?: CapBound | null): boolean {
  if (clients < 2 * minClients) return true;
  if (!cap || cap.k <= 0) return false;
  const heaviestThree = Math.min(3 * cap.k * cap.days, records - clients + 3);
  return heaviestThree * 2 >= records;
}

export function toCell(
  row: Row,
  q: Pick<CellQuery, 'dimensions' | 'bucket' | 'metrics'>,
  minClients: number,
  clientsCap?: number,
  cap?: CapBound | null,
  minSites = 1,
  mix?: (records: number) => Cell['mix'],
): Cell {
  const key = Object.fromEntries(q.dimensions.map((d) => [d, String(row[`d_${d}`])]));
  const cell: Cell = { key };
  if (q.bucket) cell.t = Number(row.t);
  const clients = Number(row.n_clients);
  if (clients < minClients) return { ...cell, suppressed: true };
  if (row.n_sites !== undefined && fewSites(Number(row.n_sites), minSites)) return { ...cell, suppressed: true };
  const records = Number(row.n_records);
  cell.records = records;
  cell.clients = clients;
  if (clientsCap !== undefined && clients >= clientsCap) cell.clientsCapped = true;
  if (fewClients(records, clients, minClients, cap)) cell.fewClients = true;
  for (const p of phasesOf(q.metrics)) cell[p] = quantiles(row[`q_${p}`]);
  if (q.metrics === 'handshake') {
    cell.mix = mix?.(records) ?? emptyMix();
    cell.evidence = {
      evidenced: share(Number(row.n_evidenced), records),
      inferred: share(Number(row.n_inferred), records),
    };
  }
  return cell;
}

export async function queryCells(
  client: ClickHouseClient,
  q: CellQuery,
  minClientsPerCell: number,
): Promise<CellAnswer> {
  // The owner's own runs hold no person: no cell is suppressed (a threshold of 0), none marked few (no cap bound below).
  const own = q.filters.ownSynthetic === true;
  const minClients = own ? 0 : minClientsPerCell;
  const { sql, params, readTable } = buildCellSql(q, minClients);
  // A read of the raw table is heavy (query-pool.ts): it takes turns with other heavy ones, never a light one's slot.
  const [rows, joint] = await Promise.all([
    heavyWhen(readTable === RAW, () =>
      client.query({ query: sql, query_params: params, format: 'JSONEachRow' }).then((r) => r.json<Row>()),
    ),
    q.metrics === 'handshake' ? jointMixCells(client, q, minClients) : Promise.resolve(null),
  ]);
  // An aggregate over no rows at all still yields one row (zero records): that is "no data", not a cell.
  const kept = rows.filter((r) => Number(r.n_records) > 0);
  const truncated = kept.length > q.limit;
  // Client tokens rotate daily: one token spans at most two UTC days (one in a day or hour bucket). The
  // raw table holds a token to K per cell and day in hourly cells (read time) and, of one site, in daily
  // ones (ingest marks: K per site and day); every site together may hold K per site it sent for.
  const exact = !own && readTable.name === 'raw' && (q.bucket === 'hour' || q.filters.site !== null);
  const cap = exact
    ? { k: q.filters.clientCap, days: q.bucket ? 1 : Math.min(2, Math.ceil((q.filters.to - q.filters.from) / DAY)) }
    : null;
  const minSites = spansSites(q.filters) ? q.filters.minSites! : 1;
  const cells = kept
    .slice(0, q.limit)
    .map((r) =>
      toCell(r, q, minClients, readTable.agg.clientsCap, cap, minSites, (records) =>
        protectedMix(joint?.get(cellKey(r, q)), records),
      ),
    );
  return { cells, truncated, table: readTable.name === 'raw' ? 'raw' : 'rollup' };
}

const MIX_NAMES = Object.keys(MIXES) as MixName[];

/** A catalogue value as an SQL literal (no input reaches it; a quote or backslash is escaped all the same). */
const sqlString = (v: string) => `'${v.replace(/[\\']/g, (c) => `\\${c}`)}'`;
const mixValueIs = (i: number) => `d_${MIX_VALUES[i]!.mix} = ${sqlString(MIX_VALUES[i]!.value)}`;

/**
 * A handshake cell's mixes get the protection its sub-groups would get as cells of their own
 * (mix-protection.ts): its records are split into joint cells (the cell × protocol × TLS version × class ×
 * resumed), each shown or hidden by the same rules as any cell (clients, and without a token the k-sites
 * rule), and a share is shown only if no group of hidden joint cells then follows from the shown figures.
 * The joint cells are read from the smallest source holding the cell's dimensions and the mix columns: the
 * cell's own cut or a larger one, and the raw table where no cut holds them all.
 *
 * The store sums each cell's joint cells into one row: an hourly series over a month has tens of thousands
 * of joint cells, and reading them out one by one cost more than the query itself. The records per mix
 * value come as one array summed over fixed conditions (MIX_VALUES' order); which joint cells the cell has,
 * and which are hidden, as two arrays of combination numbers, the first only for a cell with a hidden one.
 */
function jointMixSql(
  q: CellQuery,
  minClients: number,
): { sql: string; params: Record<string, string | number>; readTable: ReadTable } {
  const joint = buildCellSql(
    {
      ...q,
      dimensions: [...new Set([...q.dimensions, ...JOINT_COLUMNS, ...MIX_NAMES])],
      metrics: 'counts',
      limit: Infinity,
      unordered: true,
    },
    minClients,
  );
  const params: Record<string, string | number> = { ...joint.params, minClients };
  // A joint cell is shown by toCell's rules, in SQL: enough clients and, without a token, not few sites (fewSites).
  let shown = 'n_clients >= {minClients:UInt32}';
  if (spansSites(q.filters)) {
    shown += ' AND NOT (n_sites > 0 AND n_sites < {minSites:UInt32})';
    params.minSites = q.filters.minSites!;
  }
  const keys = [...(q.bucket ? ['t'] : []), ...q.dimensions.map((d) => `d_${d}`)];
  const each = MIX_VALUES.map((_, i) => i);
  const sql = [
    `SELECT ${[
      ...keys,
      `sumForEach([${each.map((i) => `if(${mixValueIs(i)}, n_records, 0)`).join(', ')}]) AS records`,
      'groupArrayIf(combo, NOT shown) AS hidden',
      'if(empty(hidden), [], groupArray(combo)) AS combos',
    ].join(',\n  ')}`,
    `FROM (SELECT *, ${shown} AS shown, ${jointComboSql((c) => `d_${c}`)} AS combo FROM (\n${joint.sql}\n) WHERE n_records > 0)`,
    keys.length ? `GROUP BY ${keys.join(', ')}` : '',
  ]
    .filter(Boolean)
    .join('\n');
  return { sql, params, readTable: joint.readTable };
}

/** A cell's key in the joint cells' map: its time bucket (0 without one), then its dimensions' values. */
const cellKey = (row: Row, q: Pick<CellQuery, 'dimensions' | 'bucket'>) =>
  JSON.stringify([q.bucket ? Number(row.t) : 0, ...q.dimensions.map((d) => String(row[`d_${d}`]))]);

/** Each cell's joint cells by its key (cellKey). */
async function jointMixCells(
  client: ClickHouseClient,
  q: CellQuery,
  minClients: number,
): Promise<Map<string, JointCells>> {
  const built = jointMixSql(q, minClients);
  const rows = await heavyWhen(built.readTable === RAW, async () =>
    (await client.query({ query: built.sql, query_params: built.params, format: 'JSONEachRow' })).json<Row>(),
  );
  const out = new Map<string, JointCells>();
  // Kept as the store sends them (protectMix reads them by index): an hourly series by stack over a month has
  // thousands of cells, and an object per mix and value for each of them was most of the answer's own work.
  for (const r of rows)
    out.set(cellKey(r, q), {
      records: (r.records as (string | number)[]).map(Number),
      hidden: (r.hidden as (string | number)[]).map(Number),
      combos: (r.combos as (string | number)[]).map(Number),
    });
  return out;
}

/** Every mix with no value: what a cell shows when its joint cells are unknown. */
function emptyMix(): Record<MixName, Record<string, number>> {
  const mix = {} as Record<MixName, Record<string, number>>;
  for (const m of MIX_NAMES) mix[m] = {};
  return mix;
}

/** A cell's mixes from its joint cells: the shares protectMix allows, each its value's records over the cell's. */
function protectedMix(joint: JointCells | undefined, records: number): Cell['mix'] {
  const mix = emptyMix();
  if (!joint) return mix;
  const shown = protectMix(joint);
  for (let i = 0; i < MIX_VALUES.length; i++) {
    if (!shown[i]) continue;
    const { mix: m, value } = MIX_VALUES[i]!;
    mix[m][value] = share(joint.records[i] ?? 0, records);
  }
  return mix;
}

/**
 * Raw table or rollup for a range: the rollup unless the caller asks for the raw table (a query whose
 * dimensions no cut holds still reads the raw table: chooseReadTable). The rollups answer whole hours, so
 * the range is widened to hour boundaries — to day boundaries from a week on, as the week and month views
 * always were (shared/query/range.ts); the answer reports the range it actually covers.
 */
export function chooseTable(
  range: { from: number; to: number },
  requested: 'auto' | Table = 'auto',
): { table: Table; from: number; to: number } {
  const table = requested === 'auto' ? 'rollup' : requested;
  if (table === 'raw') return { table, ...range };
  return { table, ...widenedRange(range) };
}
