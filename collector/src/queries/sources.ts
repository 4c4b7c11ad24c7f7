/**
 * Where a cell query reads from: the raw table, or one cut of the daily rollup (a few dimensions per day;
 * store/migrations/0005_daily_rollup.sql, states replaced by 0006). The API asks for `raw` or `rollup`;
 * `rollup` reads the smallest cut that holds every dimension the query groups or filters by — or the raw
 * table when no cut does (a browser or source filter, country with stack, hourly buckets, a range not in
 * whole days) or when the suppression threshold is above what the rollup counts clients up to.
 * All SQL here is fixed text: no input reaches it.
 */
import { bucketPercentilesSql } from './histogram';
import { PERCENTILES, type Phase } from './percentiles';
import { RAW_CLIENTS, ROLLUP_CLIENTS, ROLLUP_CLIENTS_CAP } from './clients';
import { CUTS_BY, DIMENSION_SQL, MIXES, type Cut, type Dimension, type MixName, type Table } from './dimensions';

export { ROLLUP_CLIENTS_CAP };

export interface Aggregates {
  records: string;
  clients: string;
  /** `clients` counts up to this value and stops there ("this many or more"); absent: counts them all. */
  clientsCap?: number;
  quantiles: (p: Phase) => string;
  /** Count of records per value of a mix's dimension (a Map), given the dimension's SQL expression. */
  mix: (expr: string, name: MixName) => string;
  evidenced: string;
  inferred: string;
}

export interface Source {
  name: string;
  table: string;
  /** Time column and its resolution. */
  time: string;
  grain: 'ms' | 'day';
  /** Which dimension expressions apply (dimensions.ts): the rollup stores normalised values. */
  expressions: Table;
  /** The rollup cut read (null: the raw table, which holds every dimension). */
  cut: Cut | null;
  /** Rows of one site (can filter by site), of every site together, or both (raw). */
  sites: 'any' | 'one' | 'all';
  /** Fixed condition selecting the source's rows within its table. */
  where?: string;
  agg: Aggregates;
}

// Profiled at 2 M rows (BENCHMARKS.md): one `countIf` per listed value costs 2.5× less than `sumMap(map(…))`.
const rawAgg: Aggregates = {
  records: 'count()',
  clients: RAW_CLIENTS,
  quantiles: (p) => `quantilesTDigest(${PERCENTILES})(${p})`,
  // MIXES values are fixed identifiers without quotes: safe as literals.
  mix: (expr, name) => `map(${MIXES[name].map((v) => `'${v}', countIf(${expr} = '${v}')`).join(', ')})`,
  evidenced: "countIf(resumedSource IN ('observed', 'server-timing'))",
  inferred: "countIf(resumedSource = 'inferred')",
};

// Distinct clients: exact below 100 like the raw count, then "100 or more" (clients.ts); chooseSource reads
// the raw table when MIN_CLIENTS_PER_CELL is above 100.
const rollupAgg: Aggregates = {
  records: 'sum(records)',
  clients: ROLLUP_CLIENTS,
  clientsCap: ROLLUP_CLIENTS_CAP,
  quantiles: (p) => bucketPercentilesSql(`${p}_buckets`),
  mix: (_expr, name) => `sumMap(mix_${name})`,
  evidenced: 'sum(evidenced)',
  inferred: 'sum(inferred)',
};

export const RAW: Source = { name: 'raw', table: 'handshakes', time: 'ts', grain: 'ms', expressions: 'raw', cut: null, sites: 'any', agg: rawAgg };

/**
 * One cut. Its number is what grouping(site, country, protocol) gives for its grouping set in the
 * migration: a bit set where the column is aggregated away (site: 4, country: 2, protocol: 1).
 */
function cut(by: Cut, sites: 'one' | 'all'): Source {
  // The crypto rollup (0009) is a table of its own, its cut grouping(site): 1 where site is aggregated away.
  const n = by === 'crypto' ? (sites === 'all' ? 1 : 0) : (sites === 'all' ? 4 : 0) + (by === 'stack' ? 2 : 1);
  return {
    name: `rollup-${sites === 'all' ? 'all-sites' : 'site'}-by-${by}`,
    table: by === 'crypto' ? 'handshakes_crypto_per_day' : 'handshakes_per_day',
    time: 'day',
    grain: 'day',
    expressions: 'rollup',
    cut: by,
    sites,
    where: `cut = ${n}`,
    agg: rollupAgg,
  };
}

/** By stack first: fewer rows than by country. */
export const CUTS: readonly Source[] = (['all', 'one'] as const).flatMap((sites) => CUTS_BY.map((by) => cut(by, sites)));

const DAY = 86_400_000;

export interface SourceNeeds {
  table: Table;
  dimensions: readonly Dimension[];
  /** Dimensions filtered on (besides site and time). */
  filters: readonly Dimension[];
  site: string | null;
  bucket?: 'hour' | 'day';
  from: number;
  to: number;
  /** Suppression threshold (distinct clients). */
  minClients: number;
}

/** The source a query reads: raw when asked for, else the smallest cut able to answer it exactly, else raw. */
export function chooseSource(q: SourceNeeds): Source {
  if (q.table === 'raw') return RAW;
  const needed = [...new Set([...q.dimensions, ...q.filters])].map((d) => DIMENSION_SQL[d].rollup);
  if (q.bucket === 'hour' || q.from % DAY !== 0 || q.to % DAY !== 0 || q.minClients > ROLLUP_CLIENTS_CAP) return RAW;
  const fits = (s: Source) =>
    (q.site === null ? s.sites === 'all' : s.sites === 'one') && needed.every((r) => s.cut !== null && r !== null && r.cuts.includes(s.cut));
  return CUTS.find(fits) ?? RAW;
}
