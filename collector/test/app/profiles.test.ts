/**
 * Site profiles in the collector: built from the stored probe results and the site's reported records,
 * served in `GET /v1/sites`, and applied at ingest to records that arrived without them. Real store (chDB).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProbeResult } from '@tlsrum/shared';
import { insertProbes } from '../../src/probes/store';
import { SiteProfiles } from '../../src/sites/profiles/registry';
import { makeBatch, makeRecords, postBatch, removeDir, startApp, storedRows, type TestApp } from '../support/helpers';

const ADMIN = 'admin-token-for-tests-0001';
const SITE = 'shop.example.com';
const SPLIT = 'split.example.com';
let t: TestApp;

function probeResult(v12: boolean, v13: boolean, resumes: boolean): ProbeResult {
  return {
    url: `https://${SITE}/`,
    host: SITE,
    phases: { dns: 0, tcp: 1, tls: 2, ttfb: 1 },
    tls: {
      versions: { '1.0': false, '1.1': false, '1.2': v12, '1.3': v13 },
      negotiated: { version: v13 ? '1.3' : '1.2', cipher: 'TLS_AES_128_GCM_SHA256', group: 'X25519', alpn: 'h2' },
    },
    pq: { supported: null },
    cert: { chainLength: 2, chainBytes: 2100, leaf: null },
    ocsp: { stapled: false },
    resumption: { '1.2': v12 ? resumes : null, '1.3': v13 ? resumes : null, ticketLifetimeS: resumes ? 7200 : null },
    earlyData: { allowed: false },
    h3: { advertised: false, altSvc: null },
    errors: [],
  };
}
const outcome = (result: ProbeResult) => ({ result, identity: { leafSpkiSha256: null, chainSha256: null } });

beforeAll(async () => {
  t = await startApp({ ADMIN_TOKEN: ADMIN });
  for (const hostname of [SITE, SPLIT]) {
    await t.app.inject({
      method: 'POST',
      url: '/v1/sites',
      payload: { hostname },
      headers: { authorization: `Bearer ${ADMIN}` },
    });
  }
  const now = Date.now();
  await insertProbes(t.app.store.query, [
    { site: SITE, hostname: SITE, at: now - 60_000, outcome: outcome(probeResult(true, true, false)) },
    { site: SPLIT, hostname: SPLIT, at: now - 60_000, outcome: outcome(probeResult(true, true, true)) },
  ]);
  // Firefox observed both sites: SITE always on TLS 1.3; SPLIT on 1.2 now and then (an edge that differs).
  expect(
    (await postBatch(t.app, makeBatch(makeRecords(6, { site: SITE, tlsVersion: '1.3', tlsVersionSource: 'observed' }))))
      .statusCode,
  ).toBe(202);
  expect(
    (
      await postBatch(
        t.app,
        makeBatch([
          ...makeRecords(4, { site: SPLIT, tlsVersion: '1.3', tlsVersionSource: 'observed' }),
          ...makeRecords(1, { site: SPLIT, tlsVersion: '1.2', tlsVersionSource: 'observed' }),
        ]),
      )
    ).statusCode,
  ).toBe(202);
  await t.app.ingest.flush();
  await t.app.profiles.refresh();
});
afterAll(async () => {
  await t.close();
  removeDir(t.dataDir);
});

describe('site profiles', () => {
  it('a rebuild reads as background work: no reader waits behind it', async () => {
    const before = t.app.store.queryPool.counts.background;
    await t.app.profiles.refresh();
    expect(t.app.store.queryPool.counts.background).toBeGreaterThanOrEqual(before + 2);
  });

  it('GET /v1/sites keeps its list and adds each site’s profile', async () => {
    const body = (await t.app.inject({ url: '/v1/sites' })).json();
    expect(body.sites).toEqual([SITE, SPLIT]);
    expect(body.profiles[SITE]).toMatchObject({
      hostname: SITE,
      maxVersion: '1.3',
      versions: { '1.2': true, '1.3': true },
      resumption: { '1.2': false, '1.3': false },
      disagreements: [],
      // Six records: too few to show a count of them (a site's traffic is not public).
      confidence: { probes: 1, observations: 0, agreement: 1 },
    });
  });

  it('where the probe and the records disagree, the profile says so and claims nothing', async () => {
    const p = (await t.app.inject({ url: '/v1/sites' })).json().profiles[SPLIT];
    expect(p.disagreements).toEqual([
      expect.stringContaining('records negotiated TLS 1.2 although the servers accept TLS 1.3'),
    ]);
    expect(p.confidence).toMatchObject({ observations: 0, agreement: 0 });
    expect(p).toMatchObject({ maxVersion: null, resumption: { '1.2': null, '1.3': null } });
  });

  it('at ingest, a Chromium record without version or resumption gets the profile’s, as site-profile; others are kept as sent', async () => {
    const unknown = {
      browser: 'chrome' as const,
      browserMajor: 156,
      tlsVersion: null,
      tlsVersionSource: 'unknown' as const,
      resumed: null,
      resumedSource: 'unknown' as const,
    };
    const records = [
      ...makeRecords(1, { ...unknown, site: SITE, clientToken: 'profile-enriched-1' }),
      ...makeRecords(1, { ...unknown, site: SPLIT, clientToken: 'profile-disputed-1' }),
      ...makeRecords(1, {
        site: SITE,
        browser: 'chrome',
        browserMajor: 156,
        tlsVersion: '1.3',
        tlsVersionSource: 'server-timing',
        resumed: null,
        resumedSource: 'unknown',
        clientToken: 'profile-kept-0001',
      }),
      ...makeRecords(1, {
        site: SITE,
        tlsVersion: null,
        tlsVersionSource: 'unknown',
        resumed: true,
        resumedSource: 'inferred',
        transport: 'quic',
        protocol: 'h3',
        tcp: 0,
        tls: 50,
        connect: 50,
        clientToken: 'profile-quic-0001',
      }),
    ];
    expect((await postBatch(t.app, makeBatch(records))).statusCode).toBe(202);
    const rows = await storedRows(t.app, "clientToken LIKE 'profile-%'");
    const by = (token: string) => rows.find((r) => r.clientToken === token)!;
    expect(by('profile-enriched-1')).toMatchObject({
      tlsVersion: '1.3',
      tlsVersionSource: 'site-profile',
      resumed: false,
      resumedSource: 'site-profile',
    });
    expect(by('profile-disputed-1')).toMatchObject({
      tlsVersion: null,
      tlsVersionSource: 'unknown',
      resumed: null,
      resumedSource: 'unknown',
    });
    // The site's own version stays server-timing; only its unknown resumption comes from the profile.
    expect(by('profile-kept-0001')).toMatchObject({
      tlsVersion: '1.3',
      tlsVersionSource: 'server-timing',
      resumed: false,
      resumedSource: 'site-profile',
    });
    // The probe speaks TCP: a QUIC record is left as sent.
    expect(by('profile-quic-0001')).toMatchObject({ tlsVersionSource: 'unknown', resumedSource: 'inferred' });
  });

  it('only reported versions feed the profile, never those it gave', async () => {
    await t.app.profiles.refresh();
    expect(t.app.profiles.get(SITE)).toMatchObject({ confidence: { observations: 7 }, disagreements: [] });
  });
  it('a refresh() asked for while a rebuild is under way sees what changed since that rebuild began', async () => {
    const LATE = 'late.example.com';
    await insertProbes(t.app.store.query, [
      { site: LATE, hostname: LATE, at: Date.now() - 1000, outcome: outcome(probeResult(false, true, true)) },
    ]);
    const sites = [SITE];
    const registry = new SiteProfiles(t.app.store.query, () => sites);
    // This rebuild has read the site list before LATE is registered.
    const under = registry.refresh();
    sites.push(LATE);
    await registry.refresh();
    await under;
    expect(registry.get(LATE)).toMatchObject({ hostname: LATE, maxVersion: '1.3', confidence: { probes: 1 } });
  });
});
