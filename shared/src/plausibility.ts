/**
 * Plausibility of a handshake record: rules a record must meet beyond the schema's types and ranges.
 * Pure (no DOM, no Node): the collector runs them at ingest; the tests run them on records built from
 * real browsers' timing entries. Each rule is named (the name is what a 400 answer or a stored flag
 * says), and has a verdict:
 *
 * - `reject`: only what no honest client can produce — an arithmetic identity of the record's own
 *   definition is broken (every producer derives tcp, tls and connect from the same three instants).
 *   The batch is refused with 400 naming the rule, like any schema violation.
 * - `flag`: what an honest client can produce in odd cases (an older classifier, a clock that jumped, a
 *   nightly browser, an untested browser's timing quirk). The record is stored, marked, and left out of
 *   every figure: nothing honest is lost, nothing doubtful is counted.
 *
 * docs/integrity.md gives each rule's reasoning; shared/README.md lists them.
 */
import { classifyHandshake } from './classify/classify';
import { MAX_PHASE_MS, PHASE_RESOLUTION_MS, type Browser } from './constants';
import type { HandshakeRecord } from './schema';

/**
 * connect − (tcp + tls), at most. Each of the three is rounded to 0.1 ms from the same instants, so
 * their difference is a multiple of 0.1 ms of at most 0.1 ms (three roundings of ±0.05 each); the
 * float epsilon absorbs binary representation (245.1 + 205.6 ≠ 450.7 exactly). The recorded fixtures
 * show 0 and 0.1 ms (Chromium) and 0 (Firefox's whole milliseconds): shared/test/plausibility.test.ts.
 */
export const PHASE_SUM_TOLERANCE_MS = PHASE_RESOLUTION_MS + 1e-6;
/**
 * A record is measured before its batch is sent, so ts ≤ sentAt, both from the client's own clock.
 * The extension drops records older than 23 h before forming a batch (extension/src/lib/constants.ts,
 * MAX_RECORD_AGE_MS), and the collector refuses ts more than 24 h from its clock; `ts` comes from the
 * page's `performance.timeOrigin + connectStart`, which drifts from `Date.now()` when the wall clock is
 * stepped (NTP, manual change, suspend): an hour of drift either way is allowed.
 */
export const MAX_RECORD_QUEUE_MS = 24 * 3_600_000;
export const CLOCK_DRIFT_MS = 3_600_000;
/**
 * `navigator.connection.rtt`: Chromium rounds it to 25 ms and caps it at 3 000 ms (NetInfo's
 * anti-fingerprinting buckets). Firefox and Safari do not expose it.
 */
export const RTT_HINT_STEP_MS = 25;
export const RTT_HINT_MAX_MS = 3_000;

/**
 * Major versions per family, from the release cadence: Chromium-based browsers and Firefox ship a major
 * every 4 weeks (Chrome 100 on 2022-03-29, Firefox 100 on 2022-05-03), Safari one a year (26 in 2025).
 * A version more than LOOKAHEAD majors beyond the record's date is from no release channel (Canary and
 * Nightly run 2–3 ahead). The minimum is the first version that runs a Manifest V3 extension.
 * 0 means "the browser did not say" (environment.ts) and passes.
 */
const FOUR_WEEKS_MS = 28 * 86_400_000;
const VERSION_LOOKAHEAD = 4;
const cadence = (v100At: number) => (ts: number) => 100 + Math.floor((ts - v100At) / FOUR_WEEKS_MS) + VERSION_LOOKAHEAD;
const chromiumMax = cadence(Date.UTC(2022, 2, 29));
export const BROWSER_MAJOR_RANGE: Record<Browser, { min: number; max: (ts: number) => number }> = {
  chrome: { min: 88, max: chromiumMax },
  chromium: { min: 88, max: chromiumMax },
  edge: { min: 88, max: chromiumMax },
  firefox: { min: 109, max: cadence(Date.UTC(2022, 4, 3)) },
  safari: { min: 15, max: (ts) => new Date(ts).getUTCFullYear() - 2000 + 2 },
  other: { min: 0, max: () => 999 },
};

export type PlausibilityVerdict = 'reject' | 'flag';

/** What a rule sees: the record and the batch it came in. */
export interface PlausibilityContext {
  sentAt: number;
}

export interface PlausibilityRule {
  name: string;
  verdict: PlausibilityVerdict;
  /** What an honest record satisfies, said for a person (it goes into the 400 answer). */
  requirement: string;
  holds(r: HandshakeRecord, ctx: PlausibilityContext): boolean;
}

const sumHolds = (r: HandshakeRecord) => {
  const sum = r.tcp + r.tls;
  // measurePhases clamps each phase to MAX_PHASE_MS: a clamped connect is below the sum of its parts.
  if (r.connect === MAX_PHASE_MS && sum >= r.connect) return true;
  return Math.abs(r.connect - sum) <= PHASE_SUM_TOLERANCE_MS;
};

/**
 * The class the classifier gives the record's own phases. The record's phases are the classifier's
 * rounded ones, so re-running it on them reproduces the class an honest producer computed — except
 * 0-RTT read from the request order (requestStart < connectEnd), which phases do not show.
 */
const classOfPhases = (r: HandshakeRecord) => {
  const secureConnectionStart = r.dns + r.tcp;
  const connectEnd = secureConnectionStart + r.tls;
  return classifyHandshake({
    timing: {
      entryType: r.entryType,
      nextHopProtocol: r.protocol,
      startTime: 0,
      fetchStart: 0,
      domainLookupStart: 0,
      domainLookupEnd: r.dns,
      connectStart: r.dns,
      secureConnectionStart,
      connectEnd,
      requestStart: connectEnd,
      responseStart: connectEnd + r.ttfb,
    },
  }).handshakeClass;
};

/** The rules, in the order they are checked; the first `reject` that fails names the 400. */
export const PLAUSIBILITY_RULES: readonly PlausibilityRule[] = [
  {
    name: 'tls-within-connect',
    verdict: 'reject',
    // A special case of phases-add-up (tcp ≥ 0), checked first for the plainer message.
    requirement: 'tls must not exceed connect (the TLS handshake is part of the connection set-up)',
    holds: (r) => r.tls <= r.connect + PHASE_SUM_TOLERANCE_MS,
  },
  {
    name: 'phases-add-up',
    verdict: 'reject',
    requirement: `connect must equal tcp + tls within ${PHASE_RESOLUTION_MS} ms (all three come from the same timing entry)`,
    holds: sumHolds,
  },
  {
    name: 'transport-matches-protocol',
    verdict: 'reject',
    requirement: 'transport must be quic exactly when protocol is h3',
    holds: (r) => (r.transport === 'quic') === (r.protocol === 'h3'),
  },
  {
    name: 'quic-without-tcp',
    verdict: 'flag',
    requirement: 'a QUIC connection has no TCP handshake: tcp must be 0',
    holds: (r) => r.transport !== 'quic' || r.tcp === 0,
  },
  {
    name: 'class-matches-round-trips',
    verdict: 'flag',
    requirement: 'handshakeClass must be the class the phases give (tls / tcp round trips), or 0rtt',
    holds: (r) => r.handshakeClass === '0rtt' || r.handshakeClass === classOfPhases(r),
  },
  {
    name: 'ts-within-batch-window',
    verdict: 'flag',
    requirement: `ts must lie between ${MAX_RECORD_QUEUE_MS / 3_600_000 + CLOCK_DRIFT_MS / 3_600_000} h before and ${CLOCK_DRIFT_MS / 3_600_000} h after the batch's sentAt`,
    holds: (r, { sentAt }) => r.ts >= sentAt - MAX_RECORD_QUEUE_MS - CLOCK_DRIFT_MS && r.ts <= sentAt + CLOCK_DRIFT_MS,
  },
  {
    name: 'browser-version-known',
    verdict: 'flag',
    requirement: "browserMajor must be 0 (not said) or a version the browser family had released by the record's ts",
    holds: (r) => {
      if (r.browserMajor === 0) return true;
      const range = BROWSER_MAJOR_RANGE[r.browser];
      return r.browserMajor >= range.min && r.browserMajor <= range.max(r.ts);
    },
  },
  {
    name: 'rtt-hint-plausible',
    verdict: 'flag',
    requirement: `rttHint must be null, or (Chromium-based browsers only) a multiple of ${RTT_HINT_STEP_MS} ms up to ${RTT_HINT_MAX_MS} ms`,
    holds: (r) =>
      r.rttHint == null ||
      (r.browser !== 'firefox' &&
        r.browser !== 'safari' &&
        r.rttHint % RTT_HINT_STEP_MS === 0 &&
        r.rttHint <= RTT_HINT_MAX_MS),
  },
];

/** The flag rules, in order: rule i is bit 2^i of the stored `implausible` mask (0 = plausible). */
export const FLAG_RULES: readonly PlausibilityRule[] = PLAUSIBILITY_RULES.filter((r) => r.verdict === 'flag');

export interface PlausibilityResult {
  /** The first failed `reject` rule: the record must be refused. */
  rejectedBy: PlausibilityRule | null;
  /** Every failed `flag` rule, as names and as the stored bit mask (0 when none failed). */
  flags: string[];
  mask: number;
}

export function checkPlausibility(r: HandshakeRecord, ctx: PlausibilityContext): PlausibilityResult {
  let rejectedBy: PlausibilityRule | null = null;
  const flags: string[] = [];
  let mask = 0;
  for (const rule of PLAUSIBILITY_RULES) {
    if (rule.holds(r, ctx)) continue;
    if (rule.verdict === 'reject') {
      rejectedBy ??= rule;
      continue;
    }
    flags.push(rule.name);
    mask |= 1 << FLAG_RULES.indexOf(rule);
  }
  return { rejectedBy, flags, mask };
}

/** `checkPlausibility(r, ctx).mask` without the names and the result object (the collector stores the mask of every record). */
export function plausibilityMask(r: HandshakeRecord, ctx: PlausibilityContext): number {
  let mask = 0;
  for (let i = 0; i < FLAG_RULES.length; i++) if (!FLAG_RULES[i]!.holds(r, ctx)) mask |= 1 << i;
  return mask;
}

/**
 * Not a rule of the record but of its sender, set by the collector: the record's client token was one
 * too many for its address today (collector/src/ingest/token-budget.ts). The mask's top bit.
 */
export const TOKENS_PER_ADDRESS_FLAG = { name: 'tokens-per-address', mask: 1 << 7 } as const;

/** The first `reject` rule a record fails, or null (checked before anything is stored). */
export function rejectingRule(r: HandshakeRecord, ctx: PlausibilityContext): PlausibilityRule | null {
  return REJECT_RULES.find((rule) => !rule.holds(r, ctx)) ?? null;
}
const REJECT_RULES = PLAUSIBILITY_RULES.filter((r) => r.verdict === 'reject');

/** Names of the flags a stored mask holds. */
export function flagNames(mask: number): string[] {
  const names = FLAG_RULES.filter((_, i) => (mask & (1 << i)) !== 0).map((r) => r.name);
  return mask & TOKENS_PER_ADDRESS_FLAG.mask ? [...names, TOKENS_PER_ADDRESS_FLAG.name] : names;
}
