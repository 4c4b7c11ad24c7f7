/**
 * The regression checks, pure: two windows of one site in, one verdict per check out. A check fires
 * only when (1) both windows have at least `minSamples` records in its denominator and at least
 * `minClients` distinct clients (small cells are never reported), (2) the change is at least the
 * configured effect size, and (3) the one-sided test rejects "no change" at level `alpha`. Requiring
 * an effect size as well as significance keeps a large site from alerting on a real but harmless 1 %
 * wobble; the small default alpha keeps every site quiet on noise although the checks run every few
 * minutes on overlapping windows.
 */
import { CHECKS } from '@tlsrum/shared/query';
import type { Alert } from '@tlsrum/shared/query/schemas';
import { twoProportionGreater } from './stats';
import type { WindowPair, WindowStats } from './window-query';

export interface Thresholds {
  /** Significance level of each one-sided test. */
  alpha: number;
  /** Per window, in the check's denominator. */
  minSamples: number;
  /** Distinct clients per window (the small-cell rule). */
  minClients: number;
  /** Absolute drop of a share (0–1) that counts, e.g. 0.1 = ten percentage points. */
  shareDrop: number;
  /** Relative rise of a p75 that counts, e.g. 0.2 = 20 % slower. */
  p75Rise: number;
}

/**
 * One check's verdict: its part of the /v1/alerts answer. Shares (0–1) or p75s in ms in the current and
 * the baseline window (null when not reported); change = current − baseline for shares, current /
 * baseline − 1 for p75s.
 */
export type CheckResult = Pick<Alert, 'check' | 'status' | 'current' | 'baseline' | 'change' | 'pValue' | 'samples'>;

const SHARE: Record<'resumption_drop' | 'tls13_drop' | 'h3_drop', (w: WindowStats) => [hits: number, of: number]> = {
  resumption_drop: (w) => [w.resumed, w.resumedKnown],
  tls13_drop: (w) => [w.tls13, w.versionKnown],
  h3_drop: (w) => [w.h3, w.records],
};

/** Records per window, null for a window under the client threshold (a small cell's count is never shown). */
function samplesOf(pair: WindowPair, nCur: number, nBase: number, t: Thresholds): CheckResult['samples'] {
  return {
    current: pair.current.clients >= t.minClients ? nCur : null,
    baseline: pair.baseline.clients >= t.minClients ? nBase : null,
  };
}

function enough(pair: WindowPair, nCur: number, nBase: number, t: Thresholds): boolean {
  return (
    nCur >= t.minSamples &&
    nBase >= t.minSamples &&
    pair.current.clients >= t.minClients &&
    pair.baseline.clients >= t.minClients
  );
}

function shareCheck(check: keyof typeof SHARE, pair: WindowPair, t: Thresholds): CheckResult {
  const [xc, nc] = SHARE[check](pair.current);
  const [xb, nb] = SHARE[check](pair.baseline);
  const samples = samplesOf(pair, nc, nb, t);
  if (!enough(pair, nc, nb, t))
    return { check, status: 'insufficient_data', current: null, baseline: null, change: null, pValue: null, samples };
  const current = xc / nc;
  const baseline = xb / nb;
  // H1: the baseline share is greater than the current one (a drop).
  const { p } = twoProportionGreater(xb, nb, xc, nc);
  const change = current - baseline;
  const firing = -change >= t.shareDrop && p < t.alpha;
  return { check, status: firing ? 'firing' : 'ok', current, baseline, change, pValue: p, samples };
}

function p75Check(check: 'tls_p75_rise' | 'connect_p75_rise', pair: WindowPair, t: Thresholds): CheckResult {
  const key = check === 'tls_p75_rise' ? 'tls' : 'connect';
  const nc = pair.current.records;
  const nb = pair.baseline.records;
  const samples = samplesOf(pair, nc, nb, t);
  if (!enough(pair, nc, nb, t))
    return { check, status: 'insufficient_data', current: null, baseline: null, change: null, pValue: null, samples };
  const current = pair.current[`${key}P75`];
  const baseline = pair.baseline[`${key}P75`];
  // H1: more of the current window lies above the pooled p75 than of the baseline window.
  const { p } = twoProportionGreater(pair.current[`${key}AbovePooled`], nc, pair.baseline[`${key}AbovePooled`], nb);
  const change = baseline > 0 ? current / baseline - 1 : current > 0 ? Infinity : 0;
  const firing = change >= t.p75Rise && p < t.alpha;
  return {
    check,
    status: firing ? 'firing' : 'ok',
    current,
    baseline,
    change: Number.isFinite(change) ? change : null,
    pValue: p,
    samples,
  };
}

export function evaluateChecks(pair: WindowPair, t: Thresholds): CheckResult[] {
  return CHECKS.map((c) =>
    c === 'tls_p75_rise' || c === 'connect_p75_rise' ? p75Check(c, pair, t) : shareCheck(c, pair, t),
  );
}
