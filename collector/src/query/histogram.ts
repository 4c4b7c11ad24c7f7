/**
 * Percentiles of the rollups from fixed log-scale histogram buckets (docs/decisions/0004-histogram-rollup.md).
 *
 * Why not t-digest states: a rollup query merges one state per day (or hour) and group, and deserialising and
 * merging a t-digest cost ≈ 16 µs per state. A row here holds, per phase, the counts of the buckets its
 * records fall in, which merge as a sum per bucket.
 *
 * Layout (phase values are 0 … MAX_PHASE_MS = 60 000 ms, at 0.1 ms resolution):
 *   bucket 0         values below 0.1 ms (0 included)          → reported as 0 (absolute error < 0.1 ms)
 *   bucket i ≥ 1     [0.1 · g^(i−1), 0.1 · g^i) ms, g = 1.05     → reported as its geometric middle 0.1 · g^(i−½)
 * Bucket 273 holds 58 008 … 60 909 ms, so 274 buckets cover every valid value (the index is still clamped).
 * A percentile is the bucket holding the value of 0-based rank ⌊level · n⌋ — quantileExact's definition —
 * so for any data it is within √g − 1 = 2.47 % of quantileExact (values ≥ 0.1 ms; the API then rounds
 * every percentile to 0.1 ms, raw or rollup, which adds up to 0.05 ms). The raw table keeps
 * t-digest (interpolating, ≈ 1 % of exact): the two paths agree within the sum of both errors.
 *
 * The migrations hold this bucket expression as literal SQL (migrations are plain SQL files);
 * test/app/histogram.test.ts checks that each rollup's view contains exactly `bucketStateSql` of every phase.
 */
import { ALL_PHASES, PERCENTILES, type Phase } from './percentiles';

export const BUCKET_LOW_MS = 0.1;
export const BUCKET_GROWTH = 1.05;
export const BUCKETS = 274;
/** Worst case |bucket percentile / quantileExact − 1| for values of at least BUCKET_LOW_MS. */
export const MAX_RELATIVE_ERROR = Math.sqrt(BUCKET_GROWTH) - 1;

/** The bucket index (UInt16) of a phase column's value. */
export function bucketIndexSql(column: Phase): string {
  return `if(${column} < ${BUCKET_LOW_MS}, 0, least(${BUCKETS - 1}, toUInt16(1 + floor(log(${column} / ${BUCKET_LOW_MS}) / log(${BUCKET_GROWTH})))))`;
}

/**
 * The state every rollup stores per phase: a map from bucket index to count, holding only the buckets its
 * records fall in (sumMap sorts the keys and adds the counts of equal ones when rows merge).
 */
export function bucketStateSql(column: Phase): string {
  return `sumMap(map(${bucketIndexSql(column)}, toUInt64(1)))`;
}

/**
 * The same maps as bucketStateSql, for a SELECT over many records at once (a rollup filled from the stored
 * records a few whole days at a time: `backfill` in platform/store/migrate.ts): the group's bucket indices
 * collected as plain numbers, sorted, and each run of one index counted once; its length is the count. sumMap
 * adds one record at a time through generic values. Over a day of ten million records a month, the views'
 * SELECTs take 40 % less this way; at an insert's size (up to FLUSH_MAX_ROWS) there is no gain, and the views
 * keep sumMap. Every step is an array function over arrays of one length (none refers to an array from inside
 * a lambda, which would copy it for every element), so it is linear in the group's records, but it holds every
 * record's index until the group is counted. `${column}_buckets` and `${column}_starts` name the sorted
 * indices and where each run starts.
 */
export function sortedBucketStateSql(column: Phase): string {
  const sorted = `${column}_buckets`;
  const starts = `${column}_starts`;
  // 65535 is no bucket: the first index always starts a run.
  const keys = `arrayFilter((b, s) -> s, arraySort(groupArray(${bucketIndexSql(column)})) AS ${sorted}, arrayMap((b, p) -> b != p, ${sorted}, arrayPushFront(arrayPopBack(${sorted}), 65535)) AS ${starts})`;
  const counts = `arrayMap(n -> toUInt64(n), arrayPopFront(arrayDifference(arrayPushBack(arrayFilter((i, s) -> s, arrayEnumerate(${sorted}), ${starts}), length(${sorted}) + 1))))`;
  return `mapFromArrays(${keys}, ${counts})`;
}

/** A view's SELECT with every histogram built by sortedBucketStateSql: its rows, for a SELECT over many records. */
export function withSortedBuckets(select: string): string {
  let sql = select;
  for (const p of ALL_PHASES) {
    const state = `${bucketStateSql(p)} AS ${p}_hist`;
    if (sql.includes(state)) sql = sql.replace(state, `${sortedBucketStateSql(p)} AS ${p}_hist`);
  }
  return sql;
}

/** The rollup columns' type, as the migrations declare it. */
export const BUCKET_STATE_TYPE = 'SimpleAggregateFunction(sumMap, Map(UInt16, UInt64))';

/**
 * How far each level is raised before quantilesExactWeighted sees it (see `rankLevels`): small enough that
 * ⌈(level + RANK_NUDGE) · n⌉ stays ⌊level · n⌋ + 1 for every n up to MAX_EXACT_RANK_RECORDS.
 */
export const RANK_NUDGE = 1e-12;
/**
 * The records one group may hold and still get quantileExact's rank exactly: the levels are multiples of
 * 1/20, so a level · n that is not whole is at least 1/20 below the next whole number, and the nudge must
 * not cover that gap (RANK_NUDGE · n ≤ 1/20). Beyond it a percentile may come from the record one rank
 * higher, which at that count changes nothing a reader can see.
 */
export const MAX_EXACT_RANK_RECORDS = 1 / 20 / RANK_NUDGE;

/**
 * The PERCENTILES levels as quantilesExactWeighted must be given them to return quantileExact's rank.
 * quantilesExactWeighted returns the first key whose cumulative count reaches ⌈level · n⌉; quantileExact
 * takes the value of 0-based rank ⌊level · n⌋, which is the first whose cumulative count reaches
 * ⌊level · n⌋ + 1. The two differ only when level · n is whole, and a level raised by RANK_NUDGE makes
 * them agree for every count up to MAX_EXACT_RANK_RECORDS (test/app/histogram.test.ts checks it, in
 * JavaScript's doubles and on the store).
 */
export function rankLevels(): number[] {
  return PERCENTILES.split(',').map((l) => Number(l) + RANK_NUDGE);
}

/**
 * p50, p75, p95 (PERCENTILES) of a rollup column's buckets over the rows of a group, as an array like
 * quantilesTDigest's: each row's map adds its bucket counts to quantilesExactWeighted's (the -Array
 * combinator over the map's keys and counts), which returns the bucket at quantileExact's rank
 * (`rankLevels`); the bucket is reported as its middle (0 for bucket 0, and when the group has no values).
 *
 * Why not sumMap and then the rank by hand: sumMap merges through generic values, and a rank found with
 * lambdas over the merged arrays costs about 10 µs a group and phase; this form reads the maps once into a
 * small hash table per group: 2–2.5× faster on an hourly series, a little faster on a month of daily cuts.
 */
export function bucketPercentilesSql(stateColumn: string): string {
  const buckets = `quantilesExactWeightedArray(${rankLevels().join(', ')})(mapKeys(${stateColumn}), mapValues(${stateColumn}))`;
  return `arrayMap(b -> if(b = 0, 0, ${BUCKET_LOW_MS} * pow(${BUCKET_GROWTH}, b - 0.5)), ${buckets})`;
}
