/**
 * Where a cell query reads from: the raw table, the hourly rollup (every dimension, per hour) or one cut
 * of the daily rollup (a few dimensions, per day; store/migrations/0005_daily_rollup.sql). The API asks
 * for `raw` or `rollup`; within `rollup` the smallest source that holds every dimension the query groups
 * or filters by is read. All SQL here is fixed text: no input reaches it.
 */
import { PERCENTILES, type Phase } from './percentiles';
import { MIXES, type Dimension, type MixName, type Table } from './dimensions';

/** The stored columns a dimension is computed from. */
type Column = 'protocol' | 'tlsVersion' | 'resumed' | 'handshakeClass' | 'country' | 'browser' | 'source';

const COLUMNS_OF: Record<Dimension, readonly Column[]> = {
  protocol: ['protocol'],
  tlsVersion: ['tlsVersion'],
  resumed: ['resumed'],
  handshakeClass: ['handshakeClass'],
  country: ['country'],
  browser: ['browser'],
  source: ['source'],
  stack: ['protocol', 'tlsVersion'],
  mode: ['handshakeClass', 'resumed'],
};

export interface Aggregates {
  records: string;
  clients: string;
  quantiles: (p: Phase) => string;
  /** Count of records per value of a mix's dimension (a Map), given the dimension's SQL expression. */
  mix: (expr: string, name: MixName) => string;
  evidenced: string;
  inferred: string;
}

export interface Source {
  name: 'raw' | 'hourly' | 'daily-site-stack' | 'daily-site-country' | 'daily-stack' | 'daily-country';
  table: string;
  /** Time column and its resolution. */
  time: string;
  grain: 'ms' | 'hour' | 'day';
  /** Which dimension expressions apply (dimensions.ts): the rollups store normalised values. */
  expressions: Table;
  /** Stored columns available for grouping and filtering (null: all of them). */
  columns: readonly Column[] | null;
  /** Rows of one site (can filter by site), of every site together, or both (raw, hourly). */
  sites: 'any' | 'one' | 'all';
  /** Fixed condition selecting the source's rows within its table. */
  where?: string;
  agg: Aggregates;
}

// Profiled at 2 M rows (BENCHMARKS.md): `uniq` of the token strings cost 2× `uniqCombined64(12)` (its set
// grows with every client), and one `countIf` per listed value 2.5× less than `sumMap(map(…))`.
const rawAgg: Aggregates = {
  records: 'count()',
  // The same estimator as the daily rollup, so both suppress the same cells (exact up to a few hundred).
  clients: 'uniqCombined64(12)(clientToken)',
  quantiles: (p) => `quantilesTDigest(${PERCENTILES})(${p})`,
  // MIXES values are fixed identifiers without quotes: safe as literals.
  mix: (expr, name) => `map(${MIXES[name].map((v) => `'${v}', countIf(${expr} = '${v}')`).join(', ')})`,
  evidenced: "countIf(resumedSource IN ('observed', 'server-timing'))",
  inferred: "countIf(resumedSource = 'inferred')",
};

const rollupCounts = {
  records: 'sum(records)',
  quantiles: (p: Phase) => `quantilesTDigestMerge(${PERCENTILES})(${p})`,
  evidenced: 'sum(evidenced)',
  inferred: 'sum(inferred)',
};

const hourlyAgg: Aggregates = { ...rollupCounts, clients: 'uniqMerge(clients)', mix: (expr) => `sumMap(map(${expr}, records))` };
// The daily rollup keeps each mix as a count map, so cuts without those dimensions still answer them.
const dailyAgg: Aggregates = { ...rollupCounts, clients: 'uniqCombined64Merge(12)(clients)', mix: (_expr, name) => `sumMap(mix_${name})` };

const STACK: readonly Column[] = ['protocol', 'tlsVersion', 'resumed', 'handshakeClass'];
const daily = (name: Source['name'], cut: number, sites: Source['sites'], columns: readonly Column[]): Source => ({
  name,
  table: 'handshakes_daily',
  time: 'day',
  grain: 'day',
  expressions: 'rollup',
  columns,
  sites,
  where: `cut = ${cut}`,
  agg: dailyAgg,
});

export const RAW: Source = { name: 'raw', table: 'handshakes', time: 'ts', grain: 'ms', expressions: 'raw', columns: null, sites: 'any', agg: rawAgg };
export const HOURLY: Source = { name: 'hourly', table: 'handshakes_hourly', time: 'hour', grain: 'hour', expressions: 'rollup', columns: null, sites: 'any', agg: hourlyAgg };
/** Smallest first: the first that fits a query is read. `cut` values: see the migration. */
const DAILY: readonly Source[] = [
  daily('daily-stack', 6, 'all', STACK),
  daily('daily-country', 5, 'all', ['country']),
  daily('daily-site-stack', 2, 'one', STACK),
  daily('daily-site-country', 1, 'one', ['country']),
];

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
}

/** The source a query reads: raw when asked for, else the smallest rollup able to answer it exactly. */
export function chooseSource(q: SourceNeeds): Source {
  if (q.table === 'raw') return RAW;
  const dayAligned = q.from % DAY === 0 && q.to % DAY === 0;
  if (dayAligned && q.bucket !== 'hour') {
    const needed = new Set([...q.dimensions, ...q.filters].flatMap((d) => COLUMNS_OF[d]));
    const fits = (s: Source) => (q.site === null ? s.sites === 'all' : s.sites === 'one') && [...needed].every((c) => s.columns?.includes(c));
    const cut = DAILY.find(fits);
    if (cut) return cut;
  }
  return HOURLY;
}
