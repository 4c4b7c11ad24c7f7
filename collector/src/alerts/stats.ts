/**
 * Significance tests for the alert checks, pure functions.
 *
 * Shares (resumption, TLS 1.3, h3): one-sided two-proportion z-test with the pooled standard error.
 * p75 rises: a Mood-style quantile test — pool both windows, take the pooled 75th percentile q, and
 * under "no change" each window has the same share of values above q (25 %); a rise of the current
 * window's p75 shows as more of its values above q, tested with the same two-proportion z-test. It needs
 * no distributional assumption (handshake times are skewed and multi-modal: 1-RTT and 2-RTT humps).
 */

/** Standard normal upper-tail probability P(Z > z) (Abramowitz–Stegun 7.1.26 via erfc; |error| < 1.5e-7). */
export function normalUpperTail(z: number): number {
  if (!Number.isFinite(z)) return z > 0 ? 0 : 1;
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  const erfc = poly * Math.exp(-x * x);
  const upper = erfc / 2;
  return z >= 0 ? upper : 1 - upper;
}

export interface ProportionTest {
  /** z statistic for "share a is greater than share b". */
  z: number;
  /** One-sided p-value of that alternative. */
  p: number;
}

/** One-sided test that x1/n1 > x2/n2. Degenerate inputs (no variance) give p = 1 unless the shares differ completely. */
export function twoProportionGreater(x1: number, n1: number, x2: number, n2: number): ProportionTest {
  if (n1 <= 0 || n2 <= 0) return { z: 0, p: 1 };
  const p1 = x1 / n1;
  const p2 = x2 / n2;
  const pooled = (x1 + x2) / (n1 + n2);
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2));
  if (se === 0) return { z: 0, p: 1 };
  const z = (p1 - p2) / se;
  return { z, p: normalUpperTail(z) };
}
