/**
 * Where a cell query reads from: the raw table, or one cut of the rollups (a few key columns per day or
 * hour: platform/store/migrations/0011_rollup_cuts.sql, with the histogram states of 0025, and the hourly grain
 * 0013_hourly_grain.sql). The API asks for `raw` or `rollup`; `rollup` reads the smallest cut that holds
 * every rollup column the query's dimensions and filters read (dimensions.ts): for a range of whole days a
 * daily cut, for any other range of whole hours or an hourly series a cut with an hour column (a daily cut's
 * hourly one, or the hourly grain). It reads the raw table when no cut holds the columns
 * (docs/decisions/0009-hourly-grain.md lists them), when the range is not in whole hours, or when the
 * suppression threshold is above what the rollup counts clients up to. The crypto dimensions read their
 * own rollups: over whole days one crypto column at a time with the mix columns (0015), or their
 * combinations (0009); over other hours one column at a time by the hour, every site together (0028).
 * Country with a browser, source or evidence column and the mix columns has daily cuts of its own (0016), and
 * so have the evidence columns without country (0017), country with the key-exchange group (0018), the
 * signature scheme (0021), country with each other crypto column, of every site together (0029), each
 * crypto or evidence column with the source or the browser (0032), two of those columns together (0033), and
 * country with the browser and the crypto facts' source (0035). The cells of country with one of those columns
 * alone read it without the mix columns (0036).
 * All SQL here is fixed text: no input reaches it.
 */
import { bucketPercentilesSql } from './histogram';
import { HANDSHAKE_PHASES, PERCENTILES, type Phase } from './percentiles';
import { RAW_CLIENTS, ROLLUP_CLIENTS, ROLLUP_CLIENTS_CAP } from './clients';
import {
  CRYPTO_ROLLUP_COLUMN_NAMES,
  DIMENSION_SQL,
  HOURLY_COLUMNS,
  ROLLUP_COLUMNS,
  SIGNATURE_ROLLUP_COLUMN,
  type Dimension,
  type RollupColumn,
  type Table,
} from './dimensions';

export { ROLLUP_CLIENTS_CAP };

export interface Aggregates {
  records: string;
  clients: string;
  /** `clients` counts up to this value and stops there ("this many or more"); absent: counts them all. */
  clientsCap?: number;
  quantiles: (p: Phase) => string;
  evidenced: string;
  inferred: string;
}

export interface ReadTable {
  name: string;
  table: string;
  /** Time column and its resolution: the raw table's timestamps, a daily table's days, the hourly grain's hours. */
  time: string;
  grain: 'ms' | 'day' | 'hour';
  /** The column an hourly bucket is computed from (absent: this table cannot bucket by hour). */
  hourTime?: string;
  /** Which dimension expressions apply (dimensions.ts): the rollup stores normalised values. */
  expressions: Table;
  /** The rollup columns the cut groups by (null: the raw table, which holds every dimension). */
  cut: readonly RollupColumn[] | null;
  /** Rows of one site (can filter by site), of every site together, or both (raw). */
  sites: 'any' | 'one' | 'all';
  /** Fixed condition selecting this cut's rows within its table. */
  where?: string;
  /**
   * Answers only a question that reads every column of `cut`: a cut sized for exactly those columns is not the
   * smallest for fewer (the country pairs, whose cut of country and the browser is larger than the cut of the
   * browser alone).
   */
  exact?: boolean;
  /** The phases whose histograms its rows keep (absent: every phase). */
  phases?: readonly Phase[];
  /**
   * A cut of a few thousand rows a month per site (the crypto and evidence cuts): read whole, its per-site
   * rows cost less than a second read joined by group (cells.ts, the k-sites count).
   */
  few?: boolean;
  /**
   * Its rows of every site together count the registered sites behind them (`sites`, migration 0024): the
   * k-sites rule reads that count from the rows it reads anyway instead of the cut of one site each.
   */
  siteCounts?: boolean;
  /**
   * A cut of one site each with no twin of every site together: its rows of every site, summed, answer for every
   * site together (histograms and counts add up; merging the sites' distinct-client states counts a client once).
   * An answer without a token reads those rows anyway, for the k-sites count.
   */
  sumsSites?: boolean;
  agg: Aggregates;
}

const rawAgg: Aggregates = {
  records: 'count()',
  clients: RAW_CLIENTS,
  quantiles: (p) => `quantilesTDigest(${PERCENTILES})(${p})`,
  evidenced: "countIf(resumedSource IN ('observed', 'server-timing'))",
  inferred: "countIf(resumedSource = 'inferred')",
};

// Distinct clients: exact below 100 like the raw count, then "100 or more" (clients.ts); chooseReadTable reads
// the raw table when MIN_CLIENTS_PER_CELL is above 100. Every rollup keeps its histogram buckets as sparse
// maps (`_hist`, query/histogram.ts).
const rollupAgg: Aggregates = {
  records: 'sum(records)',
  clients: ROLLUP_CLIENTS,
  clientsCap: ROLLUP_CLIENTS_CAP,
  quantiles: (p) => bucketPercentilesSql(`${p}_hist`),
  evidenced: 'sum(evidenced)',
  inferred: 'sum(inferred)',
};

export const RAW: ReadTable = {
  name: 'raw',
  table: 'handshakes',
  time: 'ts',
  grain: 'ms',
  hourTime: 'ts',
  expressions: 'raw',
  cut: null,
  sites: 'any',
  agg: rawAgg,
};

/** The columns a handshake cell's mixes come from (cells.ts, jointMixCells splits each cell by them). */
const MIX_COLUMNS: readonly RollupColumn[] = ['protocol', 'tlsVersion', 'resumed', 'handshakeClass'];

/**
 * The cuts of migration 0011's grouping sets, by the columns each groups by besides the site and the day,
 * smallest first (chooseReadTable takes the first that fits). Each exists per site and for every site.
 */
const CUT_COLUMNS: readonly (readonly RollupColumn[])[] = [
  ['hour'],
  ['protocol', 'tlsVersion', 'resumed', 'handshakeClass'],
  ['country'],
  ['hour', 'protocol', 'tlsVersion'],
  ['browser', 'source', 'protocol', 'tlsVersion', 'resumed', 'handshakeClass'],
  ['country', 'browser', 'source'],
  // Country × one of the stack or mode dimensions: a fifth of the rows of country × all four columns.
  ['country', 'protocol', 'tlsVersion'],
  ['country', 'resumed', 'handshakeClass'],
  ['country', 'protocol', 'tlsVersion', 'resumed', 'handshakeClass'],
];

/**
 * The cut's number: what grouping(site, country, …, handshakeClass) gives for its grouping set in the
 * migration (ROLLUP_COLUMNS in that order), a bit set for each column aggregated away, the first
 * argument the highest bit.
 */
export function cutNumber(columns: readonly RollupColumn[], order: readonly RollupColumn[] = ROLLUP_COLUMNS): number {
  return order.reduce((n, c, i) => (columns.includes(c) ? n : n | (1 << (order.length - 1 - i))), 0);
}

/** The hourly grain's cut number of a grouping set (HOURLY_COLUMNS in grouping() order; `hour` is in every set). */
export const hourlyCutNumber = (columns: readonly RollupColumn[]): number =>
  cutNumber([...new Set([...columns, 'hour' as const])], HOURLY_COLUMNS);

export const HOURLY_TABLE = 'handshakes_per_hour';

function cut(columns: readonly RollupColumn[], sites: 'one' | 'all'): ReadTable {
  const keyed: readonly RollupColumn[] = sites === 'one' ? ['site', ...columns] : columns;
  return {
    name: `rollup-${sites === 'all' ? 'all-sites' : 'site'}-by-${columns.join('-')}`,
    table: 'handshakes_cuts',
    time: 'day',
    grain: 'day',
    ...(columns.includes('hour') ? { hourTime: 'hour' } : {}),
    expressions: 'rollup',
    cut: columns,
    sites,
    where: `cut = ${cutNumber(keyed)}`,
    siteCounts: true,
    agg: rollupAgg,
  };
}

/** Migration 0027's hourly cuts: the browser alone and the source alone, of every site together only. */
const BY_BROWSER: readonly RollupColumn[] = ['browser', ...MIX_COLUMNS];
const BY_SOURCE: readonly RollupColumn[] = ['source', ...MIX_COLUMNS];
const ALL_SITES_ONLY = new Set([BY_BROWSER, BY_SOURCE]);

/**
 * The cuts of the hourly grain (migration 0013's grouping sets, and 0027's), by their columns besides site and
 * hour, smallest first; each with the mix columns, which a handshake cell's joint mix cells group by. Each
 * exists per site and for every site, but 0027's for every site only: one site's rows of the three-column cut
 * are that site's alone.
 */
const HOURLY_CUT_COLUMNS: readonly (readonly RollupColumn[])[] = [
  MIX_COLUMNS,
  ['country', ...MIX_COLUMNS],
  ['versionEvidence', ...MIX_COLUMNS],
  BY_SOURCE,
  BY_BROWSER,
  ['browser', 'source', 'cryptoSource', ...MIX_COLUMNS],
];

function hourlyCut(columns: readonly RollupColumn[], sites: 'one' | 'all'): ReadTable {
  const keyed: readonly RollupColumn[] = sites === 'one' ? ['site', ...columns] : columns;
  return {
    name: `rollup-${sites === 'all' ? 'all-sites' : 'site'}-hourly-by-${columns.join('-')}`,
    table: HOURLY_TABLE,
    time: 'hour',
    grain: 'hour',
    hourTime: 'hour',
    expressions: 'rollup',
    cut: ['hour', ...columns],
    sites,
    where: `cut = ${hourlyCutNumber(keyed)}`,
    siteCounts: true,
    agg: rollupAgg,
  };
}

/**
 * The crypto rollup (migration 0009): a table of its own keyed by the crypto columns, one cut per site
 * (grouping(site) = 0) and one for every site (1). Only crypto queries need its columns, so only they read it.
 */
function cryptoCut(sites: 'one' | 'all'): ReadTable {
  return {
    name: `rollup-${sites === 'all' ? 'all-sites' : 'site'}-by-crypto`,
    table: 'handshakes_crypto_per_day',
    time: 'day',
    grain: 'day',
    expressions: 'rollup',
    cut: CRYPTO_ROLLUP_COLUMN_NAMES,
    sites,
    where: `cut = ${sites === 'all' ? 1 : 0}`,
    few: true,
    agg: rollupAgg,
  };
}

/**
 * A cut of a daily table with the mix columns in every row (migrations 0015, 0016, 0017, 0018, 0021, 0032,
 * 0033, 0035): its rows group by `keys` besides the site, always hold the `leading` columns and the mix columns
 * too, and its number is grouping() over `grouping`.
 */
function mixedDailyCut(
  table: string,
  grouping: readonly RollupColumn[],
  keys: readonly RollupColumn[],
  sites: 'one' | 'all',
  leading: readonly RollupColumn[] = [],
): ReadTable {
  const keyed: readonly RollupColumn[] = sites === 'one' ? ['site', ...keys] : keys;
  const columns: readonly RollupColumn[] = [...leading, ...keys, ...MIX_COLUMNS];
  return {
    name: `rollup-${sites === 'all' ? 'all-sites' : 'site'}-by-${columns.join('-')}`,
    table,
    time: 'day',
    grain: 'day',
    expressions: 'rollup',
    cut: columns,
    sites,
    where: `cut = ${cutNumber(keyed, grouping)}`,
    agg: rollupAgg,
  };
}

/**
 * The crypto rollup one crypto column at a time (migration 0015): per site and for every site, by one of
 * the four columns alone with the mix columns, so that a query on one crypto dimension and its cells'
 * mix protection (cells.ts, jointMixCells) both read a few rows a day instead of the raw table.
 */
const cryptoColumnCut = (column: (typeof CRYPTO_ROLLUP_COLUMN_NAMES)[number], sites: 'one' | 'all'): ReadTable => ({
  ...mixedDailyCut('handshakes_crypto_cuts', ['site', ...CRYPTO_ROLLUP_COLUMN_NAMES], [column], sites),
  few: true,
});

/**
 * Country with a browser-and-source, evidence or crypto-source column and the mix columns (migration 0016),
 * per site and for every site: a handshake cell's mix protection (cells.ts, jointMixCells) for the map under
 * those filters, or countries compared by them, reads a few rows a day instead of the raw table. Its cut
 * number is grouping() over (site, browser, source, versionEvidence, cryptoSource); country is in every cut.
 */
const countryCut = (columns: readonly RollupColumn[], sites: 'one' | 'all'): ReadTable => ({
  ...mixedDailyCut(
    'handshakes_country_cuts',
    ['site', 'browser', 'source', 'versionEvidence', 'cryptoSource'],
    columns,
    sites,
    ['country'],
  ),
  siteCounts: true,
});
const COUNTRY_CUT_COLUMNS: readonly (readonly RollupColumn[])[] = [
  ['browser', 'source'],
  ['versionEvidence'],
  ['cryptoSource'],
];

/**
 * The version evidence or the crypto facts' source alone with the mix columns (migration 0017), per site and
 * for every site: a comparison by either, or any chart under an evidence filter, over whole days reads a few
 * rows a day instead of the country cuts (fifty times the rows). Its cut number is grouping() over (site,
 * versionEvidence, cryptoSource).
 */
const evidenceCut = (columns: readonly RollupColumn[], sites: 'one' | 'all'): ReadTable => ({
  ...mixedDailyCut('handshakes_evidence_cuts', ['site', 'versionEvidence', 'cryptoSource'], columns, sites),
  few: true,
});
const EVIDENCE_CUT_COLUMNS: readonly (readonly RollupColumn[])[] = [['versionEvidence'], ['cryptoSource']];

/**
 * Country with the key-exchange group and the mix columns (migration 0018), per site and for every site: the
 * map under a post-quantum or group filter, and countries compared by either, over whole days. Its cut number
 * is grouping(site).
 */
const countryGroupCut = (sites: 'one' | 'all'): ReadTable => ({
  ...mixedDailyCut('handshakes_country_group_cuts', ['site'], ['kxGroup'], sites, ['country']),
  siteCounts: true,
});

/**
 * Country with the browser and the crypto facts' source and the mix columns (migration 0035), per site only, sorted
 * by country first (every site together sums its sites' rows, `sumsSites`): the coverage line (the browser by the
 * crypto facts' source) under a country filter, over whole days. Its cut number is grouping(site).
 */
const countryCoverageCut: ReadTable = {
  ...mixedDailyCut('handshakes_country_coverage_cuts', ['site'], ['browser', 'cryptoSource'], 'one', ['country']),
  sumsSites: true,
};

/**
 * The signature scheme alone with the mix columns (migration 0021), per site and for every site: a comparison
 * by it, or any chart under a signature filter, over whole days. Its cut number is grouping(site).
 */
const signatureCut = (sites: 'one' | 'all'): ReadTable => ({
  ...mixedDailyCut('handshakes_signature_cuts', ['site'], [SIGNATURE_ROLLUP_COLUMN], sites),
  few: true,
});

/**
 * One crypto or evidence column with the source or the browser and the mix columns (migration 0032), per site
 * (every site together sums its sites' rows, `sumsSites`: migration 0034): a site's view on its own pages
 * (`source=page`), or any view under a source or a browser filter, compares by a crypto or evidence column over
 * whole days from a few rows a day instead of the raw table. Its cut number is grouping() over (site, source,
 * browser, the seven columns).
 */
const BY_WHOM_COLUMNS: readonly RollupColumn[] = ['source', 'browser'];
const BY_WHOM_CUT_COLUMNS: readonly RollupColumn[] = [
  ...CRYPTO_ROLLUP_COLUMN_NAMES,
  SIGNATURE_ROLLUP_COLUMN,
  'versionEvidence',
  'cryptoSource',
];
const byWhomCut = (by: RollupColumn, column: RollupColumn): ReadTable => ({
  ...mixedDailyCut(
    'handshakes_source_browser_cuts',
    ['site', ...BY_WHOM_COLUMNS, ...BY_WHOM_CUT_COLUMNS],
    [by, column],
    'one',
  ),
  few: true,
  sumsSites: true,
});

/**
 * Two of those seven columns with the mix columns (migration 0033), per site like 0032's, and, by the browser,
 * each of the first six with the crypto facts' source: the Cryptography panel under a filter on another crypto,
 * signature or evidence column (its cells, or where the crypto combinations of 0009 hold the cells, their joint
 * mix cells), and the coverage line under a crypto filter, over whole days. Every site together sums its sites'
 * rows (`sumsSites`). Its cut number is grouping() over (site, browser, the seven columns).
 */
const PAIR_CUT_KEYS: readonly (readonly RollupColumn[])[] = [
  ...BY_WHOM_CUT_COLUMNS.flatMap((a, i) => BY_WHOM_CUT_COLUMNS.slice(i + 1).map((b) => [a, b])),
  ...BY_WHOM_CUT_COLUMNS.filter((c) => c !== 'cryptoSource').map((c) => ['browser', c, 'cryptoSource'] as const),
];
const pairCut = (keys: readonly RollupColumn[]): ReadTable => ({
  ...mixedDailyCut('handshakes_crypto_pair_cuts', ['site', 'browser', ...BY_WHOM_CUT_COLUMNS], keys, 'one'),
  few: true,
  sumsSites: true,
});

/**
 * A cut of every site together only, with no per-site twin (one site's such figures read its rows of the range
 * in the raw table): one crypto `column` alone, after the `leading` ones, with the mix columns, by day or by the
 * hour. Its rows count their sites (the k-sites rule); its number is grouping() over the table's `grouping`.
 */
const allSitesCryptoCut = (
  table: string,
  grain: 'day' | 'hour',
  leading: readonly RollupColumn[],
  column: RollupColumn,
  grouping: readonly RollupColumn[],
): ReadTable => ({
  name: `rollup-all-sites-${grain === 'hour' ? 'hourly-' : ''}by-${[...leading, column].join('-')}`,
  table,
  time: grain,
  grain,
  ...(grain === 'hour' ? { hourTime: 'hour' } : {}),
  expressions: 'rollup',
  cut: [...(grain === 'hour' ? (['hour'] as const) : []), ...leading, column, ...MIX_COLUMNS],
  sites: 'all',
  where: `cut = ${cutNumber([column], grouping)}`,
  siteCounts: true,
  agg: rollupAgg,
});

/**
 * The crypto columns by the hour (migration 0028): one of the five alone with the mix columns, for a range of
 * whole hours that is not whole days or an hourly series, which their daily cuts (0015, 0021) cannot answer.
 */
const HOURLY_CRYPTO_COLUMNS: readonly RollupColumn[] = [...CRYPTO_ROLLUP_COLUMN_NAMES, SIGNATURE_ROLLUP_COLUMN];
const hourlyCryptoCut = (column: RollupColumn) =>
  allSitesCryptoCut('handshakes_crypto_per_hour', 'hour', [], column, HOURLY_CRYPTO_COLUMNS);

/**
 * Country with one crypto column other than the key-exchange group and the mix columns, per day (migration
 * 0029): the map under a certificate key, chain length, cipher or signature filter, and countries compared by
 * one of them, over whole days.
 */
const COUNTRY_CRYPTO_COLUMNS: readonly RollupColumn[] = [
  'certKey',
  'chainLength',
  'cipherSuite',
  SIGNATURE_ROLLUP_COLUMN,
];
const countryCryptoCut = (column: RollupColumn) =>
  allSitesCryptoCut('handshakes_country_crypto_cuts', 'day', ['country'], column, COUNTRY_CRYPTO_COLUMNS);

/**
 * Country with one other column, without the mix columns, per day, of every site together (migration 0036): the
 * cells of countries compared by that column, and of the map under a filter on it, over whole days, from one row
 * per country, value and day. Only a question holding both columns reads it (`exact`), and only for the
 * handshake's phases (the phases chart's DNS and TCP read a cut with the mix columns); its cells' mix protection
 * still reads a cut with the mix columns (cells.ts, jointMixCells). Its number is grouping() over the nine columns.
 */
const COUNTRY_PAIR_COLUMNS: readonly RollupColumn[] = [
  'browser',
  'source',
  'versionEvidence',
  'cryptoSource',
  ...CRYPTO_ROLLUP_COLUMN_NAMES,
  SIGNATURE_ROLLUP_COLUMN,
];
const countryPairCut = (column: RollupColumn): ReadTable => ({
  name: `rollup-all-sites-by-country-${column}-alone`,
  table: 'handshakes_country_pairs',
  time: 'day',
  grain: 'day',
  expressions: 'rollup',
  cut: ['country', column],
  exact: true,
  phases: HANDSHAKE_PHASES,
  sites: 'all',
  where: `cut = ${cutNumber([column], COUNTRY_PAIR_COLUMNS)}`,
  siteCounts: true,
  agg: rollupAgg,
});

export const CUTS: readonly ReadTable[] = [
  // First: each answers only the questions holding exactly its two columns, for which none is smaller.
  ...COUNTRY_PAIR_COLUMNS.map(countryPairCut),
  ...(['all', 'one'] as const).flatMap((sites) => CUT_COLUMNS.map((c) => cut(c, sites))),
  ...(['all', 'one'] as const).flatMap((sites) => EVIDENCE_CUT_COLUMNS.map((c) => evidenceCut(c, sites))),
  ...(['all', 'one'] as const).flatMap((sites) => COUNTRY_CUT_COLUMNS.map((c) => countryCut(c, sites))),
  ...(['all', 'one'] as const).flatMap((sites) => CRYPTO_ROLLUP_COLUMN_NAMES.map((c) => cryptoColumnCut(c, sites))),
  cryptoCut('all'),
  cryptoCut('one'),
  countryGroupCut('all'),
  countryGroupCut('one'),
  signatureCut('all'),
  signatureCut('one'),
  ...BY_WHOM_COLUMNS.flatMap((by) => BY_WHOM_CUT_COLUMNS.map((c) => byWhomCut(by, c))),
  // After the single columns' cuts: a pair's rows are many times theirs. Pairs before the browser's triples.
  ...PAIR_CUT_KEYS.map(pairCut),
  // After the pairs: its rows are many times a pair's, and only questions holding country, the browser and the
  // crypto facts' source together need it.
  countryCoverageCut,
  ...COUNTRY_CRYPTO_COLUMNS.map(countryCryptoCut),
  ...(['all', 'one'] as const).flatMap((sites) =>
    HOURLY_CUT_COLUMNS.filter((c) => sites === 'all' || !ALL_SITES_ONLY.has(c)).map((c) => hourlyCut(c, sites)),
  ),
  ...HOURLY_CRYPTO_COLUMNS.map(hourlyCryptoCut),
];

const DAY = 86_400_000;
const HOUR = 3_600_000;

export interface ReadTableNeeds {
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
  /**
   * Every site together, read from a per-site cut (not filtered by site) so that each group can count the
   * registered sites behind it: the k-sites rule of answers without a token (cells.ts).
   */
  perSite?: boolean;
  /** The site owner's own runs (cells.ts): the rollups do not keep who sent a record, so only the raw table has them. */
  ownSynthetic?: boolean;
  /** The phases whose percentiles the cells show (absent: none, counts only). */
  phases?: readonly Phase[];
}

/** The table (raw, or a rollup cut) a query reads: raw when asked for, else the smallest cut able to answer it exactly, else raw. */
export function chooseReadTable(q: ReadTableNeeds): ReadTable {
  if (q.table === 'raw' || q.ownSynthetic) return RAW;
  const rollups = [...new Set([...q.dimensions, ...q.filters])].map((d) => DIMENSION_SQL[d].rollup);
  if (rollups.includes(null) || q.from % HOUR !== 0 || q.to % HOUR !== 0 || q.minClients > ROLLUP_CLIENTS_CAP)
    return RAW;
  // Hours (an hourly series, a range not in whole days) need a cut with an hour column.
  const byHour = q.bucket === 'hour' || q.from % DAY !== 0 || q.to % DAY !== 0;
  const needed = [...new Set([...rollups.flatMap((r) => r!.columns), ...(byHour ? (['hour'] as const) : [])])];
  const fits = (s: ReadTable) =>
    (q.site === null && !q.perSite ? s.sites === 'all' || s.sumsSites === true : s.sites === 'one') &&
    needed.every((c) => s.cut !== null && s.cut.includes(c)) &&
    (!s.exact || s.cut!.every((c) => needed.includes(c))) &&
    (q.phases ?? []).every((p) => !s.phases || s.phases.includes(p));
  return CUTS.find(fits) ?? RAW;
}

/** The time column a rollup cut's range is read on: its hour column for a range not in whole days, else its own. */
export function rangeColumn(src: ReadTable, from: number, to: number): string {
  return src.grain === 'day' && src.cut?.includes('hour') && (from % DAY !== 0 || to % DAY !== 0) ? 'hour' : src.time;
}
