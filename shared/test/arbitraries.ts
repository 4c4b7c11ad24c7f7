/**
 * fast-check arbitraries for tlsrum's data, for property tests anywhere in the workspace:
 *
 *   import { batchArb, recordArb, newTlsTimingArb } from '@tlsrum/shared/test/arbitraries';
 *
 * Valid ones (`recordArb`, `batchArb`, `hostnameArb`) produce only values the schema accepts;
 * `timingArb` produces anything a buggy browser might report (NaN, negatives, disorder);
 * `newTlsTimingArb` produces consistent timings of a new TLS connection with a known RTT and number of
 * TLS round trips, so classification can be checked against ground truth.
 */
import fc from 'fast-check';
import {
  BROWSERS,
  EFFECTIVE_TYPES,
  ENTRY_TYPES,
  EVIDENCE_SOURCES,
  HANDSHAKE_CLASSES,
  MAX_PHASE_MS,
  CERT_KEY_TYPES,
  MAX_CERT_CHAIN_BYTES,
  MAX_CERT_KEY_BITS,
  MAX_RECORDS_PER_BATCH,
  OSES,
  PROTOCOLS,
  RECORD_SOURCES,
  SCHEMA_VERSION,
  TLS_VERSIONS,
  TRANSPORTS,
  type ConnectionTiming,
  type HandshakeBatch,
  type HandshakeRecord,
  type SecurityInfo,
  type TimingEntryLike,
} from '../src/index';

const LDH = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** One DNS label: 1–63 of [a-z0-9-], not starting or ending with '-'. */
export const labelArb = fc
  .tuple(
    fc.constantFrom(...LDH),
    fc.string({ unit: fc.constantFrom(...LDH, '-'), maxLength: 20 }),
    fc.constantFrom(...LDH),
  )
  .map(([a, mid, z]) => (mid.length === 0 ? a : `${a}${mid}${z}`));

/** A lower-case hostname the schema accepts, whose last label is not all digits (not an IPv4 address). */
// The last label may not be a number: digits, or 0x + hex, which URL parsers (WHATWG "ends in a number")
// read as an IPv4 address ("0xa" → 0.0.0.10), so such a name is never a site.
export const hostnameArb = fc
  .tuple(
    fc.array(labelArb, { minLength: 0, maxLength: 4 }),
    labelArb.filter((l) => !/^(\d+|0x[0-9a-f]*)$/i.test(l)),
  )
  .map(([labels, tld]) => [...labels, tld].join('.'))
  .filter((h) => h.length <= 253);

/** A phase duration in the schema's bounds at its 0.1 ms resolution. */
export const phaseArb = fc.integer({ min: 0, max: MAX_PHASE_MS * 10 }).map((n) => n / 10);

const tokenArb = (min: number, max: number, chars: string) =>
  fc.string({ unit: fc.constantFrom(...chars), minLength: min, maxLength: max });
const TOKEN_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-';

/**
 * A valid record; `ts` within an hour before `now` so the collector's ±24 h check passes. It meets the
 * plausibility rules that refuse a record (connect = tcp + tls, transport quic exactly for h3); the
 * flagging rules it may break (such records are stored, flagged).
 */
export function recordArb(now = Date.now()): fc.Arbitrary<HandshakeRecord> {
  return anyRecordArb(now).map((r) => {
    const quic = r.protocol === 'h3';
    const tcp = quic ? 0 : r.tcp;
    const tls = Math.min(r.tls, MAX_PHASE_MS - tcp);
    return { ...r, transport: quic ? 'quic' : 'tcp', tcp, tls, connect: Math.round((tcp + tls) * 10) / 10 };
  });
}

/** A record the schema accepts, whatever its plausibility. */
export function anyRecordArb(now = Date.now()): fc.Arbitrary<HandshakeRecord> {
  return fc.record(
    {
      ts: fc.integer({ min: now - 3_600_000, max: now }),
      site: fc.option(hostnameArb, { nil: null }),
      entryType: fc.constantFrom(...ENTRY_TYPES),
      protocol: fc.constantFrom(...PROTOCOLS),
      transport: fc.constantFrom(...TRANSPORTS),
      tlsVersion: fc.option(fc.constantFrom(...TLS_VERSIONS), { nil: null }),
      tlsVersionSource: fc.constantFrom(...EVIDENCE_SOURCES),
      resumed: fc.option(fc.boolean(), { nil: null }),
      resumedSource: fc.constantFrom(...EVIDENCE_SOURCES),
      handshakeClass: fc.constantFrom(...HANDSHAKE_CLASSES),
      dns: phaseArb,
      tcp: phaseArb,
      tls: phaseArb,
      connect: phaseArb,
      ttfb: phaseArb,
      cipher: tokenArb(1, 96, TOKEN_CHARS),
      group: tokenArb(1, 40, TOKEN_CHARS),
      signatureScheme: tokenArb(1, 40, TOKEN_CHARS),
      certChainLength: fc.integer({ min: 0, max: 16 }),
      certKeyType: fc.constantFrom(...CERT_KEY_TYPES),
      certKeyBits: fc.integer({ min: 1, max: MAX_CERT_KEY_BITS }),
      certChainBytes: fc.integer({ min: 0, max: MAX_CERT_CHAIN_BYTES }),
      ocspStapled: fc.boolean(),
      ech: fc.boolean(),
      browser: fc.constantFrom(...BROWSERS),
      browserMajor: fc.integer({ min: 0, max: 999 }),
      os: fc.constantFrom(...OSES),
      effectiveType: fc.option(fc.constantFrom(...EFFECTIVE_TYPES), { nil: null }),
      rttHint: fc.option(fc.integer({ min: 0, max: 10_000 }), { nil: null }),
      source: fc.constantFrom(...RECORD_SOURCES),
      clientToken: tokenArb(8, 64, TOKEN_CHARS),
    },
    // Optional fields are sometimes absent.
    {
      requiredKeys: [
        'ts',
        'site',
        'entryType',
        'protocol',
        'transport',
        'tlsVersion',
        'tlsVersionSource',
        'resumed',
        'resumedSource',
        'handshakeClass',
        'dns',
        'tcp',
        'tls',
        'connect',
        'ttfb',
        'browser',
        'browserMajor',
        'os',
        'source',
        'clientToken',
      ],
    },
  ) as fc.Arbitrary<HandshakeRecord>;
}

export const uuidArb = fc.uuid({ version: 4 });

/** A valid batch of 1–`maxRecords` records (default 20; the schema allows 500). */
export function batchArb(opts: { now?: number; maxRecords?: number } = {}): fc.Arbitrary<HandshakeBatch> {
  const now = opts.now ?? Date.now();
  return fc.record({
    v: fc.constant(SCHEMA_VERSION as typeof SCHEMA_VERSION),
    batchId: uuidArb,
    sentAt: fc.integer({ min: now - 3_600_000, max: now }),
    agent: fc.record({ name: tokenArb(1, 64, TOKEN_CHARS + '.@/'), version: tokenArb(1, 32, TOKEN_CHARS + '.+') }),
    records: fc.array(recordArb(now), {
      minLength: 1,
      maxLength: Math.min(opts.maxRecords ?? 20, MAX_RECORDS_PER_BATCH),
    }),
  });
}

/** Any numbers a browser might report, including NaN, ±Infinity, negatives and disorder. */
export const timingArb: fc.Arbitrary<ConnectionTiming> = fc.record({
  entryType: fc.constantFrom(...ENTRY_TYPES),
  nextHopProtocol: fc.oneof(
    fc.constantFrom('h2', 'h3', 'http/1.1', 'h3-29', '', 'HTTP/1.0', 'quic'),
    fc.string({ maxLength: 12 }),
  ),
  startTime: fc.double(),
  fetchStart: fc.double(),
  domainLookupStart: fc.double(),
  domainLookupEnd: fc.double(),
  connectStart: fc.double(),
  secureConnectionStart: fc.double(),
  connectEnd: fc.double(),
  requestStart: fc.double(),
  responseStart: fc.double(),
});

export interface TimingTruth {
  timing: ConnectionTiming;
  rttMs: number;
  /** Round trips the TLS handshake took (1 or 2), or 0 for early data. */
  tlsRoundTrips: 0 | 1 | 2;
}

/**
 * A new TLS-over-TCP connection (h2 or http/1.1) on a path of `rttMs` ≥ `minRttMs`: TCP takes one RTT,
 * TLS `tlsRoundTrips` RTTs plus up to `cpuMs` of server CPU time; early data sends the request before
 * connectEnd.
 */
export function newTlsTimingArb(
  opts: { minRttMs?: number; maxRttMs?: number; cpuMs?: number } = {},
): fc.Arbitrary<TimingTruth> {
  const { minRttMs = 12, maxRttMs = 600, cpuMs = 2 } = opts;
  return fc
    .record({
      start: fc.integer({ min: 0, max: 100_000 }),
      dns: fc.integer({ min: 0, max: 2000 }).map((n) => n / 10),
      rtt: fc.integer({ min: minRttMs * 10, max: maxRttMs * 10 }).map((n) => n / 10),
      cpu: fc.integer({ min: 0, max: cpuMs * 10 }).map((n) => n / 10),
      rounds: fc.constantFrom(0, 1, 2) as fc.Arbitrary<0 | 1 | 2>,
      protocol: fc.constantFrom('h2', 'http/1.1'),
      server: fc.integer({ min: 1, max: 5000 }).map((n) => n / 10),
    })
    .map(({ start, dns, rtt, cpu, rounds, protocol, server }) => {
      const fetchStart = start;
      const domainLookupStart = fetchStart;
      const domainLookupEnd = domainLookupStart + dns;
      const connectStart = domainLookupEnd;
      const secureConnectionStart = connectStart + rtt;
      // Early data: a resumed 1-RTT handshake whose request leaves with the ClientHello.
      const tlsTime = (rounds === 0 ? 1 : rounds) * rtt + cpu;
      const connectEnd = secureConnectionStart + tlsTime;
      const requestStart = rounds === 0 ? secureConnectionStart + 0.1 : connectEnd;
      const responseStart = requestStart + rtt + server;
      return {
        timing: {
          entryType: 'resource' as const,
          nextHopProtocol: protocol,
          startTime: start,
          fetchStart,
          domainLookupStart,
          domainLookupEnd,
          connectStart,
          secureConnectionStart,
          connectEnd,
          requestStart,
          responseStart,
        },
        rttMs: rtt,
        tlsRoundTrips: rounds,
      };
    });
}

/** Security information as Firefox, CDP or a Server-Timing header might give it. */
export const securityInfoArb: fc.Arbitrary<SecurityInfo> = fc.record(
  {
    evidence: fc.constantFrom('observed', 'server-timing') as fc.Arbitrary<'observed' | 'server-timing'>,
    tlsVersion: fc.option(fc.constantFrom(...TLS_VERSIONS), { nil: null }),
    resumed: fc.option(fc.boolean(), { nil: null }),
    cipher: tokenArb(1, 40, TOKEN_CHARS),
    group: fc.option(tokenArb(1, 20, TOKEN_CHARS), { nil: null }),
    signatureScheme: tokenArb(1, 30, TOKEN_CHARS),
    certChainLength: fc.integer({ min: 0, max: 16 }),
    certKeyType: fc.constantFrom(...CERT_KEY_TYPES),
    certKeyBits: fc.integer({ min: 1, max: MAX_CERT_KEY_BITS }),
    certChainBytes: fc.integer({ min: 0, max: MAX_CERT_CHAIN_BYTES }),
    ocspStapled: fc.boolean(),
    ech: fc.boolean(),
    reportsKeyExchange: fc.boolean(),
  },
  { requiredKeys: ['evidence'] },
);

/**
 * One Resource Timing entry of a new TLS connection (h2, 40 ms TCP, 41 ms TLS) with a URL that has
 * everything that must never leave the page: port, path, query, fragment, upper-case host.
 */
export function resourceEntry(overrides: Partial<TimingEntryLike> = {}): TimingEntryLike {
  return {
    name: 'https://Static.Example.com:8443/path/to/app.js?user=42#frag',
    entryType: 'resource',
    nextHopProtocol: 'h2',
    startTime: 100,
    fetchStart: 100,
    domainLookupStart: 101,
    domainLookupEnd: 110,
    connectStart: 110,
    secureConnectionStart: 150,
    connectEnd: 191,
    requestStart: 191.5,
    responseStart: 240,
    serverTiming: [],
    ...overrides,
  };
}

/**
 * A navigation's timing as Firefox reported it on a busy machine, for a page opened in a new tab: its
 * fetch and its new connection timestamped a little before the page's time origin (TLS 14 ms).
 */
export const FIREFOX_NAVIGATION_BEFORE_ORIGIN = {
  entryType: 'navigation',
  nextHopProtocol: 'h2',
  startTime: 0,
  fetchStart: -3,
  domainLookupStart: -1,
  domainLookupEnd: -1,
  connectStart: -1,
  secureConnectionStart: -1,
  connectEnd: 13,
  requestStart: 14,
  responseStart: 15,
} as const satisfies Partial<TimingEntryLike>;

/**
 * The same navigation with its TCP handshake taking Firefox's 1 ms tick: the TLS handshake starts at the time
 * origin itself, and `secureConnectionStart` reads 0, which on any other entry would mean "no TLS".
 */
export const FIREFOX_NAVIGATION_TLS_AT_ORIGIN = {
  ...FIREFOX_NAVIGATION_BEFORE_ORIGIN,
  secureConnectionStart: 0,
} as const satisfies Partial<TimingEntryLike>;
