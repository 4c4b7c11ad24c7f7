/**
 * What Chromium records know without the site's help: over the Chromium TCP records of registered sites
 * whose connection carried no Server-Timing (the lab's page origins `a.`; `b.` is the header arm), the
 * share whose `tlsVersion` / `resumed` is not null (coverage), how often each is right, per evidence
 * source, for the extension arm and the rum arm. And how often a `site-profile` claim matches the server.
 */
import { serverOfHost } from '../lab/servers';
import type { Sample } from './samples';

export type CoverageArm = 'rum' | 'extension';
export const COVERAGE_ARMS: readonly CoverageArm[] = ['rum', 'extension'];

/** The accuracy targets (the report and the quick test state them). */
export const COVERAGE_TARGETS = {
  tlsVersionKnown: 0.99,
  tlsVersionRight: 1,
  resumedKnown: 0.9,
  resumedRight: 0.95,
} as const;

export interface FieldCoverage {
  records: number;
  known: number;
  coverage: number | null;
  /** Known claims whose truth is known, and how many of them are right. */
  judged: number;
  right: number;
  accuracy: number | null;
  /** Per evidence source: claims, right (truth known), as [claims, judged, right]. */
  bySource: Record<string, { claims: number; judged: number; right: number }>;
}

/**
 * The population: Chromium, TCP, a registered lab host whose responses carry no Server-Timing. Not the
 * crypto-lens servers: they run in cells of their own and are not probed (`pq-hybrid` accepts only
 * X25519MLKEM768, which a probe on Node < 24 cannot offer).
 */
export function withoutServerTiming(samples: readonly Sample[], arm: CoverageArm): Sample[] {
  return samples.filter((s) => {
    const where = serverOfHost(s.host);
    return (
      s.arm === arm &&
      s.browser === 'chromium' &&
      s.claimed.protocol !== 'h3' &&
      where?.prefix === 'a' &&
      !where.server.crypto
    );
  });
}

function fieldCoverage(samples: readonly Sample[], field: 'tlsVersion' | 'resumed'): FieldCoverage {
  const sourceOf = (s: Sample) => (field === 'tlsVersion' ? s.claimed.tlsVersionSource : s.claimed.resumedSource);
  const bySource: FieldCoverage['bySource'] = {};
  let known = 0;
  let judged = 0;
  let right = 0;
  for (const s of samples) {
    const src = sourceOf(s);
    const b = (bySource[src] ??= { claims: 0, judged: 0, right: 0 });
    b.claims++;
    if (s.claimed[field] === null) continue;
    known++;
    if (s.expected[field] === null) continue;
    judged++;
    b.judged++;
    if (s.claimed[field] === s.expected[field]) {
      right++;
      b.right++;
    }
  }
  const share = (a: number, n: number) => (n ? a / n : null);
  return {
    records: samples.length,
    known,
    coverage: share(known, samples.length),
    judged,
    right,
    accuracy: share(right, judged),
    bySource,
  };
}

export interface ChromiumCoverage {
  arms: Record<CoverageArm, { tlsVersion: FieldCoverage; resumed: FieldCoverage }>;
  /** The lower of the arms that have records (null: neither has any). */
  coverageChromiumTlsVersion: number | null;
  coverageChromiumResumed: number | null;
  accuracyChromiumTlsVersion: number | null;
  accuracyChromiumResumed: number | null;
}

const lowest = (xs: (number | null)[]) => {
  const known = xs.filter((x): x is number => x !== null);
  return known.length ? Math.min(...known) : null;
};

export function chromiumCoverage(samples: readonly Sample[]): ChromiumCoverage {
  const arms = Object.fromEntries(
    COVERAGE_ARMS.map((arm) => {
      const pop = withoutServerTiming(samples, arm);
      return [arm, { tlsVersion: fieldCoverage(pop, 'tlsVersion'), resumed: fieldCoverage(pop, 'resumed') }];
    }),
  ) as ChromiumCoverage['arms'];
  const all = COVERAGE_ARMS.map((a) => arms[a]).filter((a) => a.tlsVersion.records > 0);
  return {
    arms,
    coverageChromiumTlsVersion: lowest(all.map((a) => a.tlsVersion.coverage)),
    coverageChromiumResumed: lowest(all.map((a) => a.resumed.coverage)),
    accuracyChromiumTlsVersion: lowest(all.map((a) => a.tlsVersion.accuracy)),
    accuracyChromiumResumed: lowest(all.map((a) => a.resumed.accuracy)),
  };
}

/** Share of `site-profile` claims (tlsVersion and resumed, every arm and browser) that match the server's truth. */
export function siteProfileAccuracy(samples: readonly Sample[]): {
  claims: number;
  right: number;
  accuracy: number | null;
} {
  let claims = 0;
  let right = 0;
  for (const s of samples) {
    for (const field of ['tlsVersion', 'resumed'] as const) {
      const src = field === 'tlsVersion' ? s.claimed.tlsVersionSource : s.claimed.resumedSource;
      if (src !== 'site-profile' || s.expected[field] === null) continue;
      claims++;
      if (s.claimed[field] === s.expected[field]) right++;
    }
  }
  return { claims, right, accuracy: claims ? right / claims : null };
}
