/**
 * Percentiles of the daily rollup from fixed log-scale histogram buckets (store/migrations/0006_*.sql).
 *
 * Why not t-digest states: a rollup query merges one state per day and group (≈ 1 000–1 600 rows for a
 * month), and deserialising and merging a t-digest cost ≈ 16 µs per state (docs/decisions/0004-histogram-rollup.md). A row
 * here holds a vector of counts per phase instead, which merges as an element-wise sum.
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
 * The migration holds this bucket expression as literal SQL (migrations are plain SQL files);
 * test/histogram.test.ts checks that the file contains exactly `bucketStateSql` of every phase.
 */
import { PERCENTILES, type Phase } from './percentiles';

export const BUCKET_LOW_MS = 0.1;
export const BUCKET_GROWTH = 1.05;
export const BUCKETS = 274;
/** Worst case |bucket percentile / quantileExact − 1| for values of at least BUCKET_LOW_MS. */
export const MAX_RELATIVE_ERROR = Math.sqrt(BUCKET_GROWTH) - 1;

/** The bucket index (UInt16) of a phase column's value. */
export function bucketIndexSql(column: Phase): string {
  return `if(${column} < ${BUCKET_LOW_MS}, 0, least(${BUCKETS - 1}, toUInt16(1 + floor(log(${column} / ${BUCKET_LOW_MS}) / log(${BUCKET_GROWTH})))))`;
}

/** The aggregate state the rollup stores per phase: a count per bucket. */
export function bucketStateSql(column: Phase): string {
  return `countResampleState(0, ${BUCKETS}, 1)(${bucketIndexSql(column)})`;
}

/** The rollup column's type, as the migration declares it. */
export const BUCKET_STATE_TYPE = `AggregateFunction(countResample(0, ${BUCKETS}, 1), UInt16)`;

/**
 * p50, p75, p95 (PERCENTILES) from the merged bucket counts of a rollup column, as an array like
 * quantilesTDigest's. `cum` holds the cumulative counts (bound by a one-element arrayMap, SQL's `let`);
 * for each level's rank ⌊level · n⌋ the answer is the first bucket whose cumulative count exceeds it
 * (1-based `j`; 0 when the group has no values, reported as 0). ≈ 4 µs per group and phase, measured.
 */
export function bucketPercentilesSql(stateColumn: string): string {
  const ranks = `arrayMap(level -> floor(level * cum[-1]), [${PERCENTILES}])`;
  const buckets = `arrayMap(r -> arrayFirstIndex(c -> c > r, cum), ${ranks})`;
  const value = `j -> if(j <= 1, 0, ${BUCKET_LOW_MS} * pow(${BUCKET_GROWTH}, j - 1.5))`;
  return `arrayMap(cum -> arrayMap(${value}, ${buckets}), [arrayCumSum(countResampleMerge(0, ${BUCKETS}, 1)(${stateColumn}))])[1]`;
}

/** The hourly grain's sparse state per phase (migration 0013): a count per bucket index that holds values. */
export function sparseBucketStateSql(column: Phase): string {
  return `sumMap(map(${bucketIndexSql(column)}, toUInt64(1)))`;
}

/** The hourly grain's column type, as the migration declares it. */
export const SPARSE_BUCKET_STATE_TYPE = 'SimpleAggregateFunction(sumMap, Map(UInt16, UInt64))';

/**
 * bucketPercentilesSql over the hourly grain's sparse buckets: the merged map's keys are the bucket indexes
 * that hold values, in ascending order (sumMap sorts them), its values their counts; the answer for a rank
 * is the index at the first cumulative count above it, reported as that bucket's middle as above.
 */
export function sparseBucketPercentilesSql(stateColumn: string): string {
  const ranks = `arrayMap(level -> floor(level * cum[-1]), [${PERCENTILES}])`;
  const buckets = `arrayMap(r -> keys[arrayFirstIndex(c -> c > r, cum)], ${ranks})`;
  const value = `b -> if(b = 0, 0, ${BUCKET_LOW_MS} * pow(${BUCKET_GROWTH}, b - 0.5))`;
  return `arrayMap(m -> arrayMap((keys, cum) -> arrayMap(${value}, ${buckets}), [mapKeys(m)], [arrayCumSum(mapValues(m))])[1], [sumMap(${stateColumn})])[1]`;
}
