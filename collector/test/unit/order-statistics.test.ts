/**
 * The what-if's quantiles by selection give exactly what sorting gives: the same two order statistics,
 * the same interpolation, for any length, duplicates and order.
 */
import { describe, expect, it } from 'vitest';
import { median, quantilesInPlace } from '../../src/whatif/order-statistics';

/** Type-7 quantile over a sorted copy: the definition the selection must match bit for bit. */
function bySort(values: ArrayLike<number>, q: number): number {
  const s = Float64Array.from(values).sort();
  const h = (s.length - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.min(s.length - 1, lo + 1);
  return s[lo]! + (h - lo) * (s[hi]! - s[lo]!);
}

function medianBySort(values: ArrayLike<number>): number {
  const s = Float64Array.from(values).sort();
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** A deterministic pseudo-random sequence (mulberry32), so a failure can be replayed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const inputs = (): { name: string; values: number[] }[] => {
  const r = random(7);
  const out: { name: string; values: number[] }[] = [];
  for (const n of [1, 2, 3, 4, 5, 8, 9, 31, 100, 1001, 4096]) {
    out.push({ name: `${n} spread values`, values: Array.from({ length: n }, () => r() * 500) });
    out.push({ name: `${n} round milliseconds`, values: Array.from({ length: n }, () => Math.round(r() * 20)) });
    out.push({ name: `${n} ascending`, values: Array.from({ length: n }, (_, i) => i * 1.5) });
    out.push({ name: `${n} descending`, values: Array.from({ length: n }, (_, i) => n - i) });
    out.push({ name: `${n} equal`, values: Array.from({ length: n }, () => 42) });
    out.push({ name: `${n} two values`, values: Array.from({ length: n }, (_, i) => (i % 3 ? 0 : 7.25)) });
  }
  return out;
};

describe('quantiles by selection', () => {
  it('equal the sorted definition exactly, for every length, run of duplicates and order', () => {
    for (const { name, values } of inputs()) {
      const levels = [0.5, 0.75];
      expect(quantilesInPlace(Float64Array.from(values), levels), name).toEqual(levels.map((q) => bySort(values, q)));
      expect(quantilesInPlace(Float64Array.from(values), [0, 0.25, 0.95, 1]), name).toEqual(
        [0, 0.25, 0.95, 1].map((q) => bySort(values, q)),
      );
      expect(median(values), name).toBe(medianBySort(values));
    }
  });

  it('rearrange only the copy they are given, and say NaN or null for no values', () => {
    const values = [5, 1, 4, 2, 3];
    expect(median(values)).toBe(3);
    expect(values).toEqual([5, 1, 4, 2, 3]);
    expect(median([])).toBeNull();
    expect(quantilesInPlace(new Float64Array(0), [0.5, 0.75])).toEqual([NaN, NaN]);
  });
});
