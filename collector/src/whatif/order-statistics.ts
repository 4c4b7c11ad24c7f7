/**
 * Medians and quantiles without sorting: a quantile needs only the one or two values at its ranks, and
 * selecting them costs linear time where a sort costs n log n — the what-if takes nine pairs of quantiles
 * per region and for the whole, over up to `limit` connections. The values are exactly those a sort
 * gives (type-7 interpolation between the same two order statistics).
 */

/**
 * Rearranges a[lo..hi] so that a[k] holds the value a sort would put there, with no larger value before it
 * and no smaller one after it. Three-way partitions around a median of three, so runs of equal values
 * (round milliseconds) and already-sorted input stay linear.
 */
function select(a: Float64Array, k: number, lo: number, hi: number): void {
  while (hi > lo) {
    const x = a[lo]!;
    const y = a[(lo + hi) >>> 1]!;
    const z = a[hi]!;
    const pivot = x < y ? (y < z ? y : x < z ? z : x) : x < z ? x : y < z ? z : y;
    let lt = lo;
    let i = lo;
    let gt = hi;
    while (i <= gt) {
      const v = a[i]!;
      if (v < pivot) {
        a[i++] = a[lt]!;
        a[lt++] = v;
      } else if (v > pivot) {
        a[i] = a[gt]!;
        a[gt--] = v;
      } else i++;
    }
    if (k < lt) hi = lt - 1;
    else if (k > gt) lo = gt + 1;
    else return;
  }
}

/** Smallest of a[lo..hi]. */
function minimum(a: Float64Array, lo: number, hi: number): number {
  let m = a[lo]!;
  for (let i = lo + 1; i <= hi; i++) if (a[i]! < m) m = a[i]!;
  return m;
}

/**
 * Linear-interpolated quantiles (type 7, as ClickHouse's quantileExactInclusive) of `values`, for levels
 * in ascending order. `values` is rearranged (pass a copy to keep it). NaN for no values.
 */
export function quantilesInPlace(values: Float64Array, levels: readonly number[]): number[] {
  const n = values.length;
  if (!n) return levels.map(() => NaN);
  let from = 0;
  return levels.map((q) => {
    const h = (n - 1) * q;
    const lo = Math.floor(h);
    // Earlier levels left everything from their rank on at or above it: the next rank is selected there.
    select(values, lo, from, n - 1);
    from = lo;
    const below = values[lo]!;
    return h > lo ? below + (h - lo) * (minimum(values, lo + 1, n - 1) - below) : below;
  });
}

/** Median of `values` (the mean of the middle two for an even count); null for none. Leaves `values` as it was. */
export function median(values: ArrayLike<number>): number | null {
  const n = values.length;
  if (!n) return null;
  const a = Float64Array.from(values);
  const m = n >> 1;
  if (n % 2) {
    select(a, m, 0, n - 1);
    return a[m]!;
  }
  select(a, m - 1, 0, n - 1);
  return (a[m - 1]! + minimum(a, m, n - 1)) / 2;
}
