/**
 * Site profiles and the classifier's use of them, on the recorded Chromium and Firefox fixtures: each
 * fixture's nginx server described as the site probe reports it (versions, resumption, early data), and
 * the expected values from nginx's own log, never from the classifier.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  applyProfileToRecord,
  buildSiteProfile,
  classifyHandshake,
  historyKey,
  measuredFields,
  profileClaims,
  PROFILE_MAX_PROBE_AGE_MS,
  PROFILE_MIN_OBSERVATIONS,
  publicSiteProfile,
  type ConnectionTiming,
  type ProfileObservations,
  type SiteProfile,
} from '../src/classify/index';
import { EVIDENCE_SOURCES } from '../src/constants';
import type { ProbeResult } from '../src/probe';

interface Fixture {
  id: string;
  path: string;
  visit: 'cold' | 'warm';
  server: { protocols: 'TLSv1.2' | 'TLSv1.3'; http2: boolean; earlyData: boolean };
  truth: { tlsVersion: '1.2' | '1.3'; resumed: boolean; earlyData: boolean };
  timing: ConnectionTiming;
}
const load = (browser: string) =>
  (
    JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures', `${browser}.json`), 'utf8')) as {
      fixtures: Fixture[];
    }
  ).fixtures;

const NOW = Date.UTC(2026, 10, 24, 6, 0);

/** A probe result as `pnpm probe --json` gives it, for the given server facts. */
function probe(over: {
  v12: boolean;
  v13: boolean;
  r12?: boolean | null;
  r13?: boolean | null;
  lifetime?: number | null;
  early?: boolean | null;
  h3?: boolean;
}): ProbeResult {
  return {
    url: 'https://a.lab.test/',
    host: 'a.lab.test',
    phases: { dns: 0, tcp: 1, tls: 2, ttfb: 1 },
    tls: {
      versions: { '1.0': false, '1.1': false, '1.2': over.v12, '1.3': over.v13 },
      negotiated: { version: over.v13 ? '1.3' : '1.2', cipher: 'x', group: 'X25519', alpn: 'h2' },
    },
    pq: { supported: null },
    cert: { chainLength: 2, chainBytes: 2000, leaf: null },
    ocsp: { stapled: false },
    resumption: { '1.2': over.r12 ?? null, '1.3': over.r13 ?? null, ticketLifetimeS: over.lifetime ?? 300 },
    earlyData: { allowed: over.early ?? null },
    h3: { advertised: over.h3 ?? false, altSvc: null },
    errors: [],
  };
}

const NONE: ProfileObservations = { versions: {}, resumed: {} };
const profileOf = (result: ProbeResult, observations = NONE, at = NOW - 60_000) =>
  buildSiteProfile({ hostname: 'a.lab.test', probes: [{ at, result }], observations, now: NOW });

/** The fixtures' three nginx servers as the probe sees them (resumption: nginx's log on the warm visits). */
function serverProbe(f: Fixture): ProbeResult {
  if (f.server.protocols === 'TLSv1.2') return probe({ v12: true, v13: false, r12: true, early: null });
  if (f.id.includes('hrr')) return probe({ v12: false, v13: true, r13: false, early: false });
  return probe({ v12: false, v13: true, r13: true, early: f.server.earlyData });
}

const historyOf = (f: Fixture) => (f.visit === 'warm' ? { msSincePriorHandshake: 1_000 } : null);

describe('buildSiteProfile', () => {
  it('claims what a fresh probe and the reported records agree on', () => {
    const p = profileOf(probe({ v12: true, v13: true, r12: true, r13: true, lifetime: 7200, early: false, h3: true }), {
      versions: { '1.3': 40 },
      resumed: { '1.3': { yes: 10, no: 30 } },
    });
    expect(p).toMatchObject({
      maxVersion: '1.3',
      versions: { '1.2': true, '1.3': true },
      resumption: { '1.2': true, '1.3': true },
      ticketLifetimeS: 7200,
      earlyData: false,
      h3: true,
      disagreements: [],
    });
    expect(p.confidence).toEqual({ probes: 1, observations: 40, agreement: 1, ageS: 60 });
  });

  it('records on TLS 1.2 from servers that accept 1.3: some edges differ, the profile says so and claims nothing', () => {
    const p = profileOf(probe({ v12: true, v13: true, r13: true }), {
      versions: { '1.3': 90, '1.2': 10 },
      resumed: {},
    });
    expect(p.disagreements).toHaveLength(1);
    expect(p.disagreements[0]).toMatch(/records negotiated TLS 1.2 although the servers accept TLS 1.3/);
    expect(p.disagreements[0]).not.toMatch(/\d+ of \d+|\d+ records/);
    expect(p).toMatchObject({
      maxVersion: null,
      versions: { '1.2': null, '1.3': null },
      resumption: { '1.2': null, '1.3': null },
      ticketLifetimeS: null,
    });
    expect(p.confidence.agreement).toBe(0);
    expect(profileClaims(p, 'chrome', 156)).toBeNull();
  });

  it('probes of two edges that disagree, or records resumed on a server probed without resumption: claims nothing', () => {
    const twoEdges = buildSiteProfile({
      hostname: 'a',
      probes: [
        { at: NOW - 1000, result: probe({ v12: true, v13: true }) },
        { at: NOW - 2000, result: probe({ v12: true, v13: false }) },
      ],
      observations: NONE,
      now: NOW,
    });
    expect(twoEdges.disagreements[0]).toMatch(/disagree on TLS 1.3/);
    expect(twoEdges.maxVersion).toBeNull();
    const resumedAnyway = profileOf(probe({ v12: false, v13: true, r13: false }), {
      versions: { '1.3': 5 },
      resumed: { '1.3': { yes: 2, no: 3 } },
    });
    expect(resumedAnyway.disagreements[0]).toMatch(/resumption off, yet records resumed/);
    expect(profileClaims(resumedAnyway, 'chrome', 156)).toBeNull();
  });

  it('a stale probe counts for nothing; without one only many unanimous records make a version claim', () => {
    expect(profileOf(probe({ v12: true, v13: true }), NONE, NOW - PROFILE_MAX_PROBE_AGE_MS - 1)).toMatchObject({
      maxVersion: null,
      confidence: { probes: 0, ageS: null },
    });
    const few = buildSiteProfile({
      hostname: 'a',
      probes: [],
      observations: { versions: { '1.3': PROFILE_MIN_OBSERVATIONS - 1 }, resumed: {} },
      now: NOW,
    });
    expect(few.maxVersion).toBeNull();
    const many = buildSiteProfile({
      hostname: 'a',
      probes: [],
      observations: { versions: { '1.3': PROFILE_MIN_OBSERVATIONS }, resumed: {} },
      now: NOW,
    });
    expect(many).toMatchObject({
      maxVersion: '1.3',
      versions: { '1.2': null, '1.3': true },
      resumption: { '1.2': null, '1.3': null },
    });
  });
});

describe('publicSiteProfile', () => {
  it('shows no small count of a site’s records, and rounds a large one down to a power of ten', () => {
    const few = profileOf(probe({ v12: true, v13: true }), { versions: { '1.3': 7 }, resumed: {} });
    expect(publicSiteProfile(few).confidence).toMatchObject({ observations: 0, agreement: 1 });
    const many = profileOf(probe({ v12: true, v13: true }), { versions: { '1.3': 4321 }, resumed: {} });
    expect(publicSiteProfile(many).confidence).toMatchObject({ observations: 1000, agreement: 1 });
    const split = profileOf(probe({ v12: true, v13: true }), { versions: { '1.3': 5, '1.2': 1 }, resumed: {} });
    expect(publicSiteProfile(split).confidence).toMatchObject({ observations: 0, agreement: 0 });
  });
});

describe('profileClaims', () => {
  const both = profileOf(probe({ v12: true, v13: true, r12: false, r13: false, lifetime: 60 }));
  it('the negotiated version is the highest both ends support', () => {
    expect(profileClaims(both, 'chrome', 156)?.tlsVersion).toBe('1.3');
    expect(profileClaims(both, 'other', 0)?.tlsVersion).toBe('1.2');
    expect(profileClaims(profileOf(probe({ v12: false, v13: true })), 'other', 0)?.tlsVersion).toBeNull();
    expect(profileClaims(profileOf(probe({ v12: true, v13: false })), 'firefox', 153)?.tlsVersion).toBe('1.2');
    expect(profileClaims(both, 'chrome', 156)?.ticketLifetimeMs).toBe(60_000);
  });
});

describe.each(['chromium', 'firefox'])('recorded %s fixtures with the server’s profile', (browser) => {
  const fixtures = load(browser);
  const env = {
    browser: (browser === 'firefox' ? 'firefox' : 'chromium') as 'firefox' | 'chromium',
    browserMajor: browser === 'firefox' ? 153 : 156,
  };

  it('timings + profile: every version known and equal to nginx’s; resumption never contradicts nginx', () => {
    for (const f of fixtures) {
      const claims = profileClaims(profileOf(serverProbe(f)), env.browser, env.browserMajor);
      const c = classifyHandshake({ timing: f.timing, history: historyOf(f), profile: claims });
      expect(c.tlsVersion, f.id).toBe(f.truth.tlsVersion);
      expect(['site-profile', 'implied'], f.id).toContain(c.tlsVersionSource);
      if (c.resumed !== null) expect(c.resumed, `${f.id} ${c.resumedSource}`).toBe(f.truth.resumed);
      // The server that never resumes: every handshake with it is a full one, known from the profile.
      if (f.id.includes('hrr')) expect(c, f.id).toMatchObject({ resumed: false, resumedSource: 'site-profile' });
    }
  });

  it('never overrides what the browser observed or the site reported', () => {
    for (const f of fixtures) {
      const wrong = profileClaims(
        profileOf(
          probe({ v12: f.truth.tlsVersion !== '1.2', v13: f.truth.tlsVersion === '1.2', r12: false, r13: false }),
        ),
        env.browser,
        env.browserMajor,
      );
      const observed = classifyHandshake({
        timing: f.timing,
        profile: wrong,
        security: { evidence: 'observed', tlsVersion: f.truth.tlsVersion, resumed: f.truth.resumed },
      });
      expect(observed, f.id).toMatchObject({
        tlsVersion: f.truth.tlsVersion,
        tlsVersionSource: 'observed',
        resumed: f.truth.resumed,
        resumedSource: 'observed',
      });
      const st = classifyHandshake({
        timing: f.timing,
        profile: wrong,
        security: { evidence: 'server-timing', tlsVersion: f.truth.tlsVersion, resumed: f.truth.resumed },
      });
      expect(st, f.id).toMatchObject({ tlsVersionSource: 'server-timing', resumedSource: 'server-timing' });
    }
  });

  it('the history rule uses the profile’s ticket lifetime', () => {
    const f = fixtures.find((x) => x.id.includes('tls12-warm'))!;
    const short = profileClaims(
      profileOf(probe({ v12: true, v13: false, r12: true, lifetime: 1 })),
      env.browser,
      env.browserMajor,
    );
    const long = profileClaims(
      profileOf(probe({ v12: true, v13: false, r12: true, lifetime: 3600 })),
      env.browser,
      env.browserMajor,
    );
    const afterTenMinutes = { msSincePriorHandshake: 600_000 };
    expect(classifyHandshake({ timing: f.timing, history: afterTenMinutes, profile: short }).resumed).toBeNull();
    expect(classifyHandshake({ timing: f.timing, history: afterTenMinutes, profile: long })).toMatchObject({
      resumed: true,
      resumedSource: 'inferred',
    });
    // The default lifetime (5 min) would not have counted it.
    expect(classifyHandshake({ timing: f.timing, history: afterTenMinutes }).resumed).toBeNull();
    // A tracked history: a handshake older than the site's ticket lifetime, or none, left no usable ticket.
    expect(
      classifyHandshake({ timing: f.timing, history: { ...afterTenMinutes, tracked: true }, profile: short }),
    ).toMatchObject({ resumed: false, resumedSource: 'inferred' });
    expect(
      classifyHandshake({ timing: f.timing, history: { msSincePriorHandshake: null, tracked: true }, profile: long }),
    ).toMatchObject({ resumed: false, resumedSource: 'inferred' });
    // Without a profile (no real lifetime) or an untracked history: no such claim.
    expect(
      classifyHandshake({ timing: f.timing, history: { msSincePriorHandshake: null, tracked: true } }).resumed,
    ).toBeNull();
    expect(
      classifyHandshake({ timing: f.timing, history: { msSincePriorHandshake: null }, profile: long }).resumed,
    ).toBeNull();
  });

  it('a tracked history with the profile: every cold visit’s resumption known, and right', () => {
    for (const f of fixtures.filter((x) => x.visit === 'cold')) {
      const claims = profileClaims(profileOf(serverProbe(f)), env.browser, env.browserMajor);
      const c = classifyHandshake({
        timing: f.timing,
        history: { msSincePriorHandshake: null, tracked: true },
        profile: claims,
      });
      expect(c.resumed, f.id).toBe(false);
      expect(f.truth.resumed, f.id).toBe(false);
    }
  });
});

describe('measuredFields with a profile', () => {
  const f = load('chromium').find((x) => x.id === 'chromium-rtt200-tls13-cold')!;
  const profile: SiteProfile = profileOf(probe({ v12: true, v13: true, r12: false, r13: false }));
  const base = {
    timing: f.timing,
    connectStartEpochMs: NOW,
    env: { browser: 'chrome' as const, browserMajor: 156, os: 'linux' as const },
  };
  it('applies to a registered site only', () => {
    expect(measuredFields({ ...base, site: 'a.lab.test', profile }).fields).toMatchObject({
      tlsVersion: '1.3',
      tlsVersionSource: 'site-profile',
      resumed: false,
      resumedSource: 'site-profile',
    });
    expect(measuredFields({ ...base, site: null, profile }).fields).toMatchObject({
      tlsVersion: null,
      tlsVersionSource: 'unknown',
    });
  });
});

describe('historyKey', () => {
  it('keys a host’s handshakes by the top-level page: a host seen under another page gives no evidence', () => {
    expect(historyKey('news.example', 'cdn.example')).not.toBe(historyKey('shop.example', 'cdn.example'));
    expect(historyKey('news.example', 'cdn.example')).toBe(historyKey('news.example', 'cdn.example'));
  });
});

describe('evidence sources', () => {
  it('every value is documented in shared/README.md', () => {
    const readme = readFileSync(join(import.meta.dirname, '..', 'README.md'), 'utf8');
    for (const s of EVIDENCE_SOURCES) expect(readme, s).toContain(`| \`${s}\` |`);
  });
});

describe('applyProfileToRecord (ingest of records built without the profile)', () => {
  const claims = profileClaims(profileOf(probe({ v12: true, v13: true, r12: false, r13: false })), 'chrome', 156);
  it('gives the same fields the classifier gives with the profile, on every recorded Chromium fixture', () => {
    for (const f of load('chromium')) {
      const env = { browser: 'chromium' as const, browserMajor: 156, os: 'linux' as const };
      const base = { timing: f.timing, connectStartEpochMs: NOW, site: 'a.lab.test', env };
      const without = measuredFields(base).fields;
      const withProfile = measuredFields({
        ...base,
        profile: profileOf(probe({ v12: true, v13: true, r12: false, r13: false })),
      }).fields;
      const enriched = applyProfileToRecord(without, claims);
      // Only a class the profile rules out (inferred 0-RTT on a server without early data) needs the timings.
      if (withProfile.handshakeClass === without.handshakeClass) {
        expect(pick(enriched), f.id).toEqual(pick(withProfile));
      }
    }
  });
  it('never touches observed, server-timing or implied fields, QUIC records, or a record without claims', () => {
    const r = {
      transport: 'tcp' as const,
      handshakeClass: '1rtt' as const,
      tlsVersion: '1.2' as const,
      tlsVersionSource: 'observed' as const,
      resumed: true,
      resumedSource: 'server-timing' as const,
    };
    expect(applyProfileToRecord(r, claims)).toBe(r);
    const quic = {
      ...r,
      transport: 'quic' as const,
      tlsVersion: '1.3' as const,
      tlsVersionSource: 'implied' as const,
      resumed: null,
      resumedSource: 'unknown' as const,
    };
    expect(applyProfileToRecord(quic, claims)).toBe(quic);
    const unknown = {
      ...r,
      tlsVersion: null,
      tlsVersionSource: 'unknown' as const,
      resumed: null,
      resumedSource: 'unknown' as const,
    };
    expect(applyProfileToRecord(unknown, null)).toBe(unknown);
    expect(applyProfileToRecord(unknown, claims)).toEqual({
      ...unknown,
      tlsVersion: '1.3',
      tlsVersionSource: 'site-profile',
      resumed: false,
      resumedSource: 'site-profile',
    });
    expect(
      applyProfileToRecord(
        { ...unknown, handshakeClass: '0rtt' as const, resumed: true, resumedSource: 'inferred' as const },
        claims,
      ).resumed,
    ).toBe(true);
  });
});

const pick = (r: { tlsVersion: unknown; tlsVersionSource: unknown; resumed: unknown; resumedSource: unknown }) => ({
  tlsVersion: r.tlsVersion,
  tlsVersionSource: r.tlsVersionSource,
  resumed: r.resumed,
  resumedSource: r.resumedSource,
});
