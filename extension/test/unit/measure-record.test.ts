import { describe, expect, it } from 'vitest';
import { Value } from 'typebox/value';
import { HandshakeRecord } from '@tlsrum/shared';
import { connectionTimingOf, TIMING_FIELDS, type TimingEntryLike } from '@tlsrum/shared/classify';
import {
  FIREFOX_NAVIGATION_BEFORE_ORIGIN,
  FIREFOX_NAVIGATION_TLS_AT_ORIGIN,
  resourceEntry,
} from '@tlsrum/shared/test/arbitraries';
import { gatherEntries } from '../../src/content/measure';
import { measurementOf, measurePhases, newConnectionsOf, type EntryTuple } from '@tlsrum/shared/classify';
import { MAX_PHASE_MS } from '@tlsrum/shared';
import type { Measurement, PageCounts } from '../../src/messages';
import { fromFirefox } from '../../src/background/firefox-security';
import { detectEnvironment } from '@tlsrum/shared/environment';
import { buildRecord } from '../../src/lib/record';

const origin = Date.parse('2026-11-23T08:00:00Z');

const emptyCounts = (): PageCounts => ({ opaque: 0, reused: 0, skipped: 0 });

function gathered(entries: TimingEntryLike[]): EntryTuple[] {
  const out: EntryTuple[] = [];
  gatherEntries(entries, out);
  return out;
}

/** The content script's gathering, then the background's reading and classifying, as a message carries them. */
function measureEntries(entries: TimingEntryLike[], timeOrigin: number, counts = emptyCounts()): Measurement[] {
  const posted = JSON.parse(JSON.stringify(gathered(entries))) as unknown;
  const out = newConnectionsOf(posted, timeOrigin);
  for (const k of ['opaque', 'reused', 'skipped'] as const) counts[k] += out.counts[k];
  return out.measurements;
}

const entry = resourceEntry;

const reused = entry({
  domainLookupStart: 100,
  domainLookupEnd: 100,
  connectStart: 100,
  secureConnectionStart: 0,
  connectEnd: 100,
});
const opaque = entry({
  nextHopProtocol: '',
  domainLookupStart: 0,
  domainLookupEnd: 0,
  connectStart: 0,
  secureConnectionStart: 0,
  connectEnd: 0,
  requestStart: 0,
  responseStart: 0,
});

describe('content script measurement', () => {
  it('keeps only the hostname of a new TLS connection, counts reused and opaque entries', () => {
    const counts = emptyCounts();
    const out = measureEntries(
      [
        entry(),
        reused,
        opaque,
        entry({ name: 'http://plain.example.com/x' }),
        entry({ name: 'data:,x' }),
        entry({ entryType: 'paint' }),
      ],
      origin,
      counts,
    );
    expect(out).toHaveLength(1);
    expect(out[0]!.host).toBe('static.example.com');
    expect(JSON.stringify(out)).not.toMatch(/path|user=42|frag|8443/);
    expect(out[0]!.startEpochMs).toBe(origin + 110);
    expect(counts).toEqual({ opaque: 1, reused: 1, skipped: 0 });
  });

  it('posts no URL from the page: only the hostname of each https entry', () => {
    const posted = JSON.stringify(
      gathered([entry(), reused, entry({ name: 'http://plain.example.com/x' }), entry({ name: 'data:,x' })]),
    );
    expect(JSON.parse(posted)).toHaveLength(2);
    expect(posted).not.toMatch(/https?:|path|user=42|frag|8443|plain/);
  });

  it('counts malformed tuples as skipped and measures the rest', () => {
    const counts = emptyCounts();
    const [good] = gathered([entry()]);
    const out = newConnectionsOf([null, 'x', [...good!.slice(0, 8), Number.NaN, ...good!.slice(9)], good], origin);
    expect(out.measurements).toHaveLength(1);
    expect(out.counts).toEqual({ ...counts, skipped: 3 });
    expect(newConnectionsOf('not an array', origin)).toEqual({ measurements: [], counts });
  });

  it('keeps the tls Server-Timing metric only', () => {
    const out = measureEntries(
      [
        entry({
          serverTiming: [
            { name: 'db', description: 'users' },
            { name: 'tls', description: 'TLSv1.3 r' },
          ],
        }),
      ],
      origin,
      emptyCounts(),
    );
    expect(out[0]!.serverTiming).toEqual([{ name: 'tls', description: 'TLSv1.3 r' }]);
  });
});

const env = detectEnvironment(
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36',
  {
    brands: [{ brand: 'Chromium', version: '156' }],
    platform: 'Linux',
  },
);
const ctx = { env, site: null, clientToken: 'abcdefgh12345678', network: { effectiveType: '4g', rttHint: 50 } };

describe('buildRecord', () => {
  it('builds a schema-valid record from a Chromium measurement', () => {
    const [m] = measureEntries([entry()], origin);
    const { record } = buildRecord(m!, ctx);
    expect(Value.Check(HandshakeRecord, record)).toBe(true);
    expect(record).toMatchObject({
      ts: origin + 110,
      site: null,
      protocol: 'h2',
      handshakeClass: '1rtt',
      tlsVersion: null,
      tcp: 40,
      tls: 41,
      browser: 'chromium',
      browserMajor: 156,
      os: 'linux',
      source: 'rum',
    });
  });

  it('joins Firefox security info, and lets Server-Timing override version and resumption', () => {
    const observed = fromFirefox({
      state: 'secure',
      protocolVersion: 'TLSv1.2',
      cipherSuite: 'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256',
      keaGroupName: 'x25519',
      signatureSchemeName: 'ECDSA-P256-SHA256',
      certificates: [{}, {}],
    });
    // Without rawDER nothing about the certificates is claimed.
    const [m] = measureEntries([entry()], origin);
    const fx = buildRecord(m!, { ...ctx, observed }).record;
    expect(Value.Check(HandshakeRecord, fx)).toBe(true);
    expect(fx).toMatchObject({
      tlsVersion: '1.2',
      tlsVersionSource: 'observed',
      resumed: false,
      resumedSource: 'observed',
      cipher: 'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256',
      group: 'x25519',
    });
    expect(fx).not.toHaveProperty('certChainLength');

    const [withSt] = measureEntries([entry({ serverTiming: [{ name: 'tls', description: 'TLSv1.2 r' }] })], origin);
    const st = buildRecord(withSt!, { ...ctx, observed }).record;
    expect(st).toMatchObject({
      tlsVersion: '1.2',
      tlsVersionSource: 'server-timing',
      resumed: true,
      resumedSource: 'server-timing',
      cipher: 'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256',
    });
  });

  it('leaves out values that do not fit the schema instead of sending them', () => {
    const [m] = measureEntries([entry()], origin);
    const { record } = buildRecord(m!, {
      ...ctx,
      network: { effectiveType: '5g', rttHint: -3 },
      observed: { evidence: 'observed', tlsVersion: '1.3', cipher: 'bad cipher name', certChainLength: 99 },
    });
    expect(Value.Check(HandshakeRecord, record)).toBe(true);
    expect(record).toMatchObject({ effectiveType: null, rttHint: null });
    expect(record).not.toHaveProperty('cipher');
    expect(record).not.toHaveProperty('certChainLength');
  });
});

describe('detectEnvironment', () => {
  it('names the browser family and OS as the schema does', () => {
    expect(detectEnvironment('Mozilla/5.0 (X11; Linux x86_64; rv:153.0) Gecko/20100101 Firefox/153.0')).toEqual({
      browser: 'firefox',
      browserMajor: 153,
      os: 'linux',
    });
    expect(
      detectEnvironment(
        'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36 Edg/140.0.0.0',
      ),
    ).toMatchObject({ browser: 'edge', browserMajor: 140, os: 'windows' });
    expect(
      detectEnvironment('x', { brands: [{ brand: 'Google Chrome', version: '141' }], platform: 'macOS' }),
    ).toMatchObject({ browser: 'chrome', browserMajor: 141, os: 'macos' });
  });
});

describe('entry tuples (content script → background)', () => {
  const [tuple] = gathered([entry()]);

  it('carry the timing fields in TIMING_FIELDS order and come back as the same timing', () => {
    const m = measurementOf(tuple, origin)!;
    expect(m.timing).toEqual(connectionTimingOf(entry()));
    expect(tuple!.slice(4)).toEqual(TIMING_FIELDS.map((f) => entry()[f]));
  });

  it('are refused when malformed: the page may have tampered with them', () => {
    const bad: unknown[] = [
      null,
      'x',
      tuple!.slice(0, -1),
      ['not a host!', ...tuple!.slice(1)],
      [tuple![0], 'paint', ...tuple!.slice(2)],
      [...tuple!.slice(0, 3), 42, ...tuple!.slice(4)],
      [...tuple!.slice(0, 3), 'x'.repeat(201), ...tuple!.slice(4)],
      // A connection that starts before its own fetch: not the fetch's connection.
      [...tuple!.slice(0, 8), -5, ...tuple!.slice(9)],
      [...tuple!.slice(0, 8), Number.NaN, ...tuple!.slice(9)],
      [...tuple!.slice(0, 8), '110', ...tuple!.slice(9)],
    ];
    for (const b of bad) expect(measurementOf(b, origin)).toBeNull();
    expect(measurementOf(tuple, Number.NaN)).toBeNull();
    // A navigation's fetchStart may be negative (Firefox, after a redirect): accepted.
    expect(measurementOf([...tuple!.slice(0, 5), -3, ...tuple!.slice(6)], origin)).not.toBeNull();
    // So may its lookup, when the page was opened from another one (Firefox): accepted.
    expect(measurementOf([...tuple!.slice(0, 5), -3, -3, -3, ...tuple!.slice(8)], origin)).not.toBeNull();
    // And its connection, from the fetch's start on and at most MAX_PHASE_MS before the origin.
    const opened = (at: number) => [...tuple!.slice(0, 5), at - 2, at - 2, at - 1, at, at, 20, 21, 30];
    expect(measurementOf(opened(-1), origin)).toMatchObject({ startEpochMs: origin - 1 });
    expect(measurementOf(opened(-MAX_PHASE_MS), origin)).not.toBeNull();
    expect(measurementOf(opened(-MAX_PHASE_MS - 1), origin)).toBeNull();
  });

  it("measure a Firefox navigation whose connection opened a millisecond before the page's time origin", () => {
    const counts = emptyCounts();
    const [m] = measureEntries(
      [entry({ ...FIREFOX_NAVIGATION_BEFORE_ORIGIN, name: 'https://d.example.com/' })],
      origin,
      counts,
    );
    expect(counts).toEqual(emptyCounts());
    expect(m).toMatchObject({ host: 'd.example.com', startEpochMs: origin - 1 });
    expect(measurePhases(m!.timing)).toEqual({ dns: 0, tcp: 0, tls: 14, connect: 14, ttfb: 1 });
  });

  it("measure it when its TLS handshake starts at the page's time origin itself (secureConnectionStart 0)", () => {
    const counts = emptyCounts();
    const [m] = measureEntries(
      [entry({ ...FIREFOX_NAVIGATION_TLS_AT_ORIGIN, name: 'https://d.example.com/' })],
      origin,
      counts,
    );
    expect(counts).toEqual(emptyCounts());
    expect(measurePhases(m!.timing)).toEqual({ dns: 0, tcp: 1, tls: 13, connect: 14, ttfb: 1 });
  });
});
