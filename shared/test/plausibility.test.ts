/**
 * Plausibility rules: honest records — built from real Chromium and Firefox timing entries by the
 * extension's own record builder (measuredFields), and from generated consistent timings — are never
 * refused or flagged; each crafted implausible record is caught by the rule meant for it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { measuredFields, type ConnectionTiming } from '../src/classify/index';
import {
  checkPlausibility,
  FLAG_RULES,
  flagNames,
  plausibilityMask,
  PHASE_SUM_TOLERANCE_MS,
  PLAUSIBILITY_RULES,
  TOKENS_PER_ADDRESS_FLAG,
} from '../src/plausibility';
import type { HandshakeRecord } from '../src/schema';
import { newTlsTimingArb } from './arbitraries';

interface Fixture {
  id: string;
  browserVersion: string;
  timing: ConnectionTiming;
  serverTiming: { name: string; description: string }[];
}
const load = (browser: string) =>
  JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures', `${browser}.json`), 'utf8')) as {
    recordedAt: string;
    fixtures: Fixture[];
  };

/** The record the extension would send for a fixture, measured `ageMs` before the batch's sentAt. */
function honestRecord(
  browser: 'chromium' | 'firefox',
  f: Fixture,
  recordedAt: number,
  withServerTiming: boolean,
): HandshakeRecord {
  const { fields } = measuredFields({
    timing: f.timing,
    connectStartEpochMs: recordedAt + f.timing.connectStart,
    site: 'a.lab.test',
    serverTiming: withServerTiming ? f.serverTiming : null,
    env: { browser, browserMajor: Number(/(\d+)\./.exec(f.browserVersion)![1]), os: 'linux' },
  });
  // Chromium exposes navigator.connection.rtt (25 ms steps); Firefox does not.
  const rttHint = browser === 'chromium' ? 200 : null;
  return {
    ...fields,
    effectiveType: browser === 'chromium' ? '4g' : null,
    rttHint,
    source: 'rum',
    clientToken: 'client-token-1',
  };
}

describe.each(['chromium', 'firefox'] as const)('honest %s records from the recorded fixtures', (browser) => {
  const { recordedAt, fixtures } = load(browser);
  const at = Date.parse(recordedAt);

  it.each([false, true])('are neither refused nor flagged (Server-Timing %s)', (withServerTiming) => {
    for (const f of fixtures) {
      const r = honestRecord(browser, f, at, withServerTiming);
      // A batch sent at once, and one that waited in the outbox for 22 h.
      for (const sentAt of [r.ts + 5_000, r.ts + 22 * 3_600_000]) {
        const result = checkPlausibility(r, { sentAt });
        expect(result.rejectedBy?.name ?? null, f.id).toBeNull();
        expect(result.flags, f.id).toEqual([]);
        expect(result.mask, f.id).toBe(0);
        expect(plausibilityMask(r, { sentAt }), f.id).toBe(0);
      }
    }
  });

  it('connect − (tcp + tls) stays within the tolerance the rule derives from the rounding', () => {
    const gaps = fixtures.map((f) => {
      const r = honestRecord(browser, f, at, false);
      return Math.abs(r.connect - r.tcp - r.tls);
    });
    // Firefox's whole milliseconds add up exactly; Chromium's 0.1 ms roundings differ by at most one step.
    if (browser === 'firefox') expect(Math.max(...gaps)).toBe(0);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(PHASE_SUM_TOLERANCE_MS);
  });
});

describe('honest records from generated consistent timings', () => {
  it('are neither refused nor flagged', () => {
    fc.assert(
      fc.property(newTlsTimingArb({ minRttMs: 1 }), fc.integer({ min: 0, max: 23 * 3_600_000 }), ({ timing }, age) => {
        const ts = Date.UTC(2026, 10, 24);
        const { fields } = measuredFields({
          timing,
          connectStartEpochMs: ts,
          site: null,
          env: { browser: 'chrome', browserMajor: 156, os: 'windows' },
        });
        const r: HandshakeRecord = { ...fields, source: 'rum', clientToken: 'client-token-1', rttHint: 75 };
        const result = checkPlausibility(r, { sentAt: ts + age });
        expect(result.rejectedBy).toBeNull();
        expect(result.flags).toEqual([]);
      }),
      { numRuns: 500 },
    );
  });
});

describe('crafted implausible records', () => {
  const { recordedAt, fixtures } = load('chromium');
  const at = Date.parse(recordedAt);
  // chromium-rtt200-tls13-cold: tcp 237.6, tls 202.2, connect 439.8, class 1rtt.
  const base = honestRecord(
    'chromium',
    fixtures.find((f) => f.id === 'chromium-rtt200-tls13-cold')!,
    at,
    false,
  );
  const sentAt = base.ts + 60_000;
  const h3 = {
    ...base,
    protocol: 'h3',
    transport: 'quic',
    tcp: 0,
    tls: 202.2,
    connect: 202.2,
    handshakeClass: '1rtt',
  } as const;

  const cases: [string, Partial<HandshakeRecord>, number?][] = [
    // The flood test's flooder (collector/test/app/flood.test.ts): a 5-second TLS phase glued onto an ordinary connection…
    ['tls-within-connect', { tls: 5000 }],
    // …with a connect to match: 21 round trips of TLS are no 1-RTT handshake (a flooder who also says
    // `unknown` passes every rule: the per-client cap, not plausibility, bounds that one).
    ['class-matches-round-trips', { tls: 5000, connect: 5237.6 }],
    ['phases-add-up', { connect: 440 }],
    ['phases-add-up', { tcp: 0, tls: 0, connect: 439.8 }],
    ['tls-within-connect', { tcp: 0, tls: 5000, connect: 4000 }],
    ['transport-matches-protocol', { transport: 'quic' }],
    ['transport-matches-protocol', { ...h3, transport: 'tcp' }],
    ['quic-without-tcp', { ...h3, tcp: 30, connect: 232.2 }],
    // 1 RTT of TLS claimed as 2, and 2 RTT claimed as 1.
    ['class-matches-round-trips', { handshakeClass: 'full-2rtt' }],
    ['class-matches-round-trips', { tls: 480, connect: 717.6, handshakeClass: '1rtt' }],
    // A TCP phase too short to count round trips against, yet a class.
    ['class-matches-round-trips', { tcp: 3, tls: 3, connect: 6, handshakeClass: '1rtt' }],
    ['class-matches-round-trips', { ...h3, handshakeClass: 'full-2rtt' }],
    ['class-matches-round-trips', { ...h3, handshakeClass: 'unknown' }],
    ['ts-within-batch-window', {}, base.ts - 2 * 3_600_000],
    ['ts-within-batch-window', {}, base.ts + 26 * 3_600_000],
    ['browser-version-known', { browserMajor: 400 }],
    ['browser-version-known', { browserMajor: 40 }],
    ['browser-version-known', { browser: 'firefox', browserMajor: 170, rttHint: null }],
    ['browser-version-known', { browser: 'safari', browserMajor: 40, rttHint: null }],
    ['rtt-hint-plausible', { rttHint: 4000 }],
    ['rtt-hint-plausible', { rttHint: 212 }],
    ['rtt-hint-plausible', { browser: 'firefox', browserMajor: 153, rttHint: 200 }],
  ];

  it('the base record is plausible', () => {
    expect(checkPlausibility(base, { sentAt })).toMatchObject({ rejectedBy: null, flags: [] });
    expect(checkPlausibility({ ...base, ...h3 }, { sentAt })).toMatchObject({ rejectedBy: null, flags: [] });
  });

  it.each(cases)('%s catches %j', (rule, change, batchSentAt) => {
    const result = checkPlausibility({ ...base, ...change } as HandshakeRecord, { sentAt: batchSentAt ?? sentAt });
    // What the collector stores: the same mask, computed without the names.
    expect(plausibilityMask({ ...base, ...change } as HandshakeRecord, { sentAt: batchSentAt ?? sentAt })).toBe(
      result.mask,
    );
    const verdict = PLAUSIBILITY_RULES.find((r) => r.name === rule)!.verdict;
    if (verdict === 'reject') expect(result.rejectedBy?.name).toBe(rule);
    else {
      expect(result.rejectedBy).toBeNull();
      expect(result.flags).toContain(rule);
      expect(flagNames(result.mask)).toEqual(result.flags);
    }
  });

  it('every rule has a crafted case', () => {
    expect(new Set(cases.map(([rule]) => rule))).toEqual(new Set(PLAUSIBILITY_RULES.map((r) => r.name)));
  });

  it('a clamped connect (60 s) may be below the sum of its clamped parts', () => {
    expect(
      checkPlausibility({ ...base, tcp: 60_000, tls: 12, connect: 60_000, handshakeClass: 'unknown' }, { sentAt })
        .rejectedBy,
    ).toBeNull();
  });

  it('each flag rule has its own bit', () => {
    // Bits 0–6 for the rules, bit 7 for the collector's tokens-per-address flag: one UInt8 column.
    expect(FLAG_RULES.length).toBeLessThanOrEqual(7);
    expect(flagNames(TOKENS_PER_ADDRESS_FLAG.mask | 1)).toEqual([FLAG_RULES[0]!.name, 'tokens-per-address']);
    const all = checkPlausibility(
      { ...base, handshakeClass: 'unknown', browserMajor: 400, rttHint: 4000 },
      { sentAt: base.ts - 2 * 3_600_000 },
    );
    expect(flagNames(all.mask)).toEqual([
      'class-matches-round-trips',
      'ts-within-batch-window',
      'browser-version-known',
      'rtt-hint-plausible',
    ]);
  });
});
