/**
 * The sites' profiles in the extension: cached with the site list (`GET /v1/sites`), checked field by field,
 * and given to classification, whose records then say `site-profile` where the profile applied.
 */
import { describe, expect, it } from 'vitest';
import { buildSiteProfile, type SiteProfile } from '@tlsrum/shared/classify';
import type { ProbeResult } from '@tlsrum/shared';
import { RegisteredSites } from '../../src/background/sites';
import { MemoryArea } from '../../src/lib/storage';
import { buildRecord } from '../../src/lib/record';
import type { Measurement } from '../../src/messages';

const NOW = Date.parse('2026-11-24T06:00:00Z');
const probe = {
  tls: { versions: { '1.0': false, '1.1': false, '1.2': true, '1.3': true } },
  resumption: { '1.2': false, '1.3': false, ticketLifetimeS: null },
  earlyData: { allowed: false },
  h3: { advertised: false },
} as unknown as ProbeResult;
const profile: SiteProfile = buildSiteProfile({
  hostname: 'shop.example.com',
  probes: [{ at: NOW - 1000, result: probe }],
  observations: { versions: {}, resumed: {} },
  now: NOW,
});

/** A collector stand-in answering the site list with one valid and one malformed profile. */
const fetcher = (async () =>
  new Response(
    JSON.stringify({
      sites: ['shop.example.com', 'news.example.com'],
      profiles: {
        'shop.example.com': profile,
        'news.example.com': { ...profile, hostname: 'news.example.com', maxVersion: '1.4' },
      },
    }),
    {
      status: 200,
    },
  )) as unknown as typeof fetch;

describe('RegisteredSites with profiles', () => {
  it('caches each valid profile with the list; a malformed one is no profile', async () => {
    const area = new MemoryArea();
    const sites = new RegisteredSites(area, fetcher, () => NOW);
    const got = await sites.withProfiles('http://collector.test');
    expect([...got.sites]).toEqual(['shop.example.com', 'news.example.com']);
    expect(got.profiles.get('shop.example.com')).toEqual(profile);
    expect(got.profiles.has('news.example.com')).toBe(false);
    // From the cache (no second fetch needed), and the plain list as before.
    const offline = new RegisteredSites(
      area,
      (async () => {
        throw new TypeError('offline');
      }) as unknown as typeof fetch,
      () => NOW + 1000,
    );
    expect((await offline.withProfiles('http://collector.test')).profiles.get('shop.example.com')).toEqual(profile);
    expect([...(await offline.get('http://collector.test'))]).toEqual(['shop.example.com', 'news.example.com']);
  });

  it('a cache written before profiles existed still gives the list', async () => {
    const area = new MemoryArea();
    await area.set({ sites: { collectorUrl: 'http://collector.test', fetchedAt: NOW, sites: ['shop.example.com'] } });
    const got = await new RegisteredSites(area, fetcher, () => NOW + 1).withProfiles('http://collector.test');
    expect([...got.sites]).toEqual(['shop.example.com']);
    expect(got.profiles.size).toBe(0);
  });
});

describe('buildRecord with a profile', () => {
  // A Chromium TLS 1.3 handshake: one round trip, which says nothing about the version by itself.
  const m: Measurement = {
    host: 'shop.example.com',
    startEpochMs: NOW,
    responseEpochMs: NOW + 300,
    timing: {
      entryType: 'resource',
      nextHopProtocol: 'h2',
      startTime: 0,
      fetchStart: 0,
      domainLookupStart: 0,
      domainLookupEnd: 0,
      connectStart: 1,
      secureConnectionStart: 81,
      connectEnd: 161,
      requestStart: 162,
      responseStart: 250,
    },
  };
  const ctx = {
    env: { browser: 'chrome' as const, browserMajor: 156, os: 'linux' as const },
    clientToken: 'abcdefgh12',
    network: { effectiveType: null, rttHint: null },
  };

  it('a registered site: version and no resumption from its profile, marked site-profile', () => {
    const { record } = buildRecord(m, { ...ctx, site: 'shop.example.com', profile });
    expect(record).toMatchObject({
      tlsVersion: '1.3',
      tlsVersionSource: 'site-profile',
      resumed: false,
      resumedSource: 'site-profile',
      handshakeClass: '1rtt',
    });
  });
  it('without a profile, the same connection stays unknown', () => {
    const { record } = buildRecord(m, { ...ctx, site: 'shop.example.com' });
    expect(record).toMatchObject({ tlsVersion: null, tlsVersionSource: 'unknown' });
  });
});
