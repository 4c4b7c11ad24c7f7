/**
 * The popup's first sentence: the median of the user's own TLS set-up times today, and how it compares
 * with the field's connections of the same kind (same handshake class). Pure.
 */
import type { HandshakeRecord } from '@tlsrum/shared';
import type { FieldPercentiles } from '../messages';

type Quantiles = { p50: number; p75: number; p95?: number };

/**
 * Estimated share (%) of the field's connections faster than `ms`, from its p50/p75/p95: linear
 * between (0 ms, 0 %), (p50, 50 %), (p75, 75 %), (p95, 95 %); above p95 it approaches 100 % slowly.
 */
export function fieldRank(ms: number, q: Quantiles): number {
  const points: [number, number][] = [
    [0, 0],
    [q.p50, 50],
    [q.p75, 75],
  ];
  if (typeof q.p95 === 'number' && q.p95 > q.p75) points.push([q.p95, 95]);
  for (let i = 1; i < points.length; i++) {
    const [x0, y0] = points[i - 1]!;
    const [x1, y1] = points[i]!;
    if (ms <= x1) return x1 === x0 ? y1 : y0 + ((ms - x0) / (x1 - x0)) * (y1 - y0);
  }
  const [xl, yl] = points[points.length - 1]!;
  return Math.min(99, yl + (100 - yl) * (1 - xl / ms));
}

export interface Verdict {
  /** Own new connections since `since`. */
  count: number;
  medianMs: number | null;
  /** Of 10 field connections of the same kind, how many were slower (null without field data). */
  quickerThanOutOf10: number | null;
}

export function verdictOf(records: HandshakeRecord[], field: FieldPercentiles, since: number): Verdict {
  const today = records.filter((r) => r.ts >= since);
  const times = today.map((r) => r.tls).sort((a, b) => a - b);
  const medianMs = times.length
    ? times.length % 2
      ? times[(times.length - 1) / 2]!
      : (times[times.length / 2 - 1]! + times[times.length / 2]!) / 2
    : null;
  const ranks = today.flatMap((r) => {
    const q = field.byClass[r.handshakeClass];
    return q ? [fieldRank(r.tls, q)] : [];
  });
  const meanRank = ranks.length ? ranks.reduce((a, b) => a + b, 0) / ranks.length : null;
  return {
    count: today.length,
    medianMs,
    quickerThanOutOf10: meanRank === null ? null : Math.round((100 - meanRank) / 10),
  };
}
