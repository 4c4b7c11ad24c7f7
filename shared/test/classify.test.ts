import { describe, expect, it } from 'vitest';
import {
  classifyHandshake,
  connectionKind,
  connectionKindOf,
  measurePhases,
  MIN_RTT_ESTIMATE_MS,
  parseTlsServerTiming,
  tlsFromServerTiming,
  type ConnectionTiming,
} from '../src/index';

/** A timing entry for a new connection on a path with the given RTT and TLS round trips. */
function entry(rtt: number, tlsRounds: number, overrides: Partial<ConnectionTiming> = {}): ConnectionTiming {
  const connectStart = 10;
  const secureConnectionStart = connectStart + rtt;
  const connectEnd = secureConnectionStart + tlsRounds * rtt + 0.7; // + server CPU time
  return {
    entryType: 'resource',
    nextHopProtocol: 'h2',
    startTime: 5,
    fetchStart: 5,
    domainLookupStart: 6,
    domainLookupEnd: connectStart,
    connectStart,
    secureConnectionStart,
    connectEnd,
    requestStart: connectEnd + 0.2,
    responseStart: connectEnd + 0.2 + rtt + 3,
    ...overrides,
  };
}

describe('connectionKind', () => {
  it('tells new, reused, opaque, insecure and out-of-order entries apart', () => {
    expect(connectionKind(entry(50, 1))).toBe('new');
    expect(
      connectionKind(entry(50, 1, { connectStart: 5, secureConnectionStart: 5, connectEnd: 5, domainLookupEnd: 5 })),
    ).toBe('reused');
    const zeros = {
      domainLookupStart: 0,
      domainLookupEnd: 0,
      connectStart: 0,
      secureConnectionStart: 0,
      connectEnd: 0,
      requestStart: 0,
      responseStart: 0,
      nextHopProtocol: '',
    };
    expect(connectionKind(entry(50, 1, zeros))).toBe('opaque');
    expect(connectionKind(entry(50, 1, { secureConnectionStart: 0 }))).toBe('insecure');
    // Opened before the page's time origin (Firefox), with the TLS handshake starting at the origin itself:
    // 0 is that instant on an https entry, and still "no TLS" on any other.
    const atOrigin = entry(50, 1, {
      fetchStart: -3,
      domainLookupStart: -2,
      domainLookupEnd: -1,
      connectStart: -1,
      secureConnectionStart: 0,
    });
    expect(connectionKind(atOrigin, { https: true })).toBe('new');
    expect(connectionKind(atOrigin)).toBe('insecure');
    expect(connectionKindOf({ timing: atOrigin, url: 'https://www.example.com/' })).toBe('new');
    expect(connectionKindOf({ timing: atOrigin, url: 'http://www.example.com/' })).toBe('insecure');
    expect(connectionKind(entry(50, 1, { secureConnectionStart: 0 }), { https: true })).toBe('insecure');
    expect(connectionKind(entry(50, 1, { responseStart: 1 }))).toBe('invalid');
  });
});

describe('measurePhases', () => {
  it('computes each phase at 0.1 ms resolution', () => {
    expect(measurePhases(entry(50, 2))).toEqual({ dns: 4, tcp: 50, tls: 100.7, connect: 150.7, ttfb: 53 });
  });
});

describe('classifyHandshake (timing only, as in Chromium)', () => {
  it('two round trips: full TLS 1.2 handshake, inferred', () => {
    const c = classifyHandshake({ timing: entry(80, 2) });
    expect(c).toMatchObject({
      handshakeClass: 'full-2rtt',
      handshakeClassSource: 'timing',
      tlsVersion: '1.2',
      tlsVersionSource: 'inferred',
      resumed: false,
      resumedSource: 'inferred',
      transport: 'tcp',
    });
  });
  it('one round trip: TLS 1.2 False Start, TLS 1.3 full and resumed look alike; nothing is claimed', () => {
    const c = classifyHandshake({ timing: entry(80, 1) });
    expect(c).toMatchObject({
      handshakeClass: '1rtt',
      tlsVersion: null,
      tlsVersionSource: 'unknown',
      resumed: null,
      resumedSource: 'unknown',
    });
  });
  it('request before connectEnd: 0-RTT, which implies a resumed TLS 1.3 session', () => {
    const e = entry(80, 1);
    const c = classifyHandshake({ timing: { ...e, requestStart: e.secureConnectionStart + 0.3 } });
    expect(c).toMatchObject({
      handshakeClass: '0rtt',
      handshakeClassSource: 'implied',
      tlsVersion: '1.3',
      tlsVersionSource: 'implied',
      resumed: true,
      resumedSource: 'implied',
    });
  });
  it('h3 implies TLS 1.3 over QUIC and a 1-RTT handshake', () => {
    const e = entry(80, 1, { nextHopProtocol: 'h3' });
    const c = classifyHandshake({ timing: { ...e, secureConnectionStart: e.connectStart } });
    expect(c).toMatchObject({
      protocol: 'h3',
      transport: 'quic',
      handshakeClass: '1rtt',
      handshakeClassSource: 'implied',
      tlsVersion: '1.3',
      tlsVersionSource: 'implied',
    });
  });
  it('a TCP connect too short to be a round trip makes the class unknown', () => {
    expect(classifyHandshake({ timing: entry(0.3, 1) })).toMatchObject({
      handshakeClass: 'unknown',
      handshakeClassSource: 'unknown',
      unknownReason: 'rtt-too-small',
    });
  });
  it('more than two round trips is not forced into a class', () => {
    expect(classifyHandshake({ timing: entry(40, 3) })).toMatchObject({
      handshakeClass: 'unknown',
      unknownReason: 'more-than-two-round-trips',
    });
  });
  it('a recent handshake with the same host makes resumption likely: inferred, not observed', () => {
    const c = classifyHandshake({ timing: entry(80, 1), history: { msSincePriorHandshake: 30_000 } });
    expect(c).toMatchObject({ resumed: true, resumedSource: 'inferred' });
    const old = classifyHandshake({ timing: entry(80, 1), history: { msSincePriorHandshake: 3_600_000 } });
    expect(old).toMatchObject({ resumed: null, resumedSource: 'unknown' });
  });
});

describe('classifyHandshake with security information', () => {
  it('Firefox TLS 1.2 with a key exchange group: full handshake, observed', () => {
    const c = classifyHandshake({
      timing: entry(80, 1),
      security: { evidence: 'observed', tlsVersion: '1.2', group: 'x25519', reportsKeyExchange: true },
    });
    expect(c).toMatchObject({
      tlsVersion: '1.2',
      tlsVersionSource: 'observed',
      resumed: false,
      resumedSource: 'observed',
    });
  });
  it('Firefox TLS 1.2 without a group: resumed by ticket, observed', () => {
    const c = classifyHandshake({
      timing: entry(80, 1),
      security: { evidence: 'observed', tlsVersion: '1.2', reportsKeyExchange: true },
    });
    expect(c).toMatchObject({ resumed: true, resumedSource: 'observed' });
  });
  it('Firefox TLS 1.3: version observed, resumption not observable', () => {
    const c = classifyHandshake({
      timing: entry(80, 1),
      security: { evidence: 'observed', tlsVersion: '1.3', group: 'X25519MLKEM768', reportsKeyExchange: true },
    });
    expect(c).toMatchObject({
      tlsVersion: '1.3',
      tlsVersionSource: 'observed',
      resumed: null,
      resumedSource: 'unknown',
    });
  });
  it('Server-Timing from the site is the source of truth for version and resumption', () => {
    const c = classifyHandshake({
      timing: entry(80, 2),
      security: { evidence: 'server-timing', tlsVersion: '1.3', resumed: true },
    });
    expect(c).toMatchObject({
      tlsVersion: '1.3',
      tlsVersionSource: 'server-timing',
      resumed: true,
      resumedSource: 'server-timing',
    });
  });
});

describe('connectionKind: reuse versus sub-resolution phases', () => {
  it('a new loopback connection whose phases round to 0 ms (Firefox) is new, not reused', () => {
    const t = entry(50, 1, {
      fetchStart: 5,
      domainLookupStart: 5,
      domainLookupEnd: 7,
      connectStart: 7,
      secureConnectionStart: 7,
      connectEnd: 7,
      requestStart: 7,
      responseStart: 9,
    });
    expect(connectionKind(t)).toBe('new');
    expect(classifyHandshake({ timing: t })).toMatchObject({
      handshakeClass: 'unknown',
      unknownReason: 'rtt-too-small',
    });
  });
  it('pooled onto an open connection after a DNS lookup (no TLS start) is reused', () => {
    const t = entry(50, 1, {
      fetchStart: 5,
      domainLookupStart: 5,
      domainLookupEnd: 9,
      connectStart: 9,
      secureConnectionStart: 0,
      connectEnd: 9,
    });
    expect(connectionKind(t)).toBe('reused');
  });
});

describe('minimum RTT estimate', () => {
  it(`a TCP connect under ${MIN_RTT_ESTIMATE_MS} ms is not divided by`, () => {
    expect(classifyHandshake({ timing: entry(MIN_RTT_ESTIMATE_MS - 1, 2) })).toMatchObject({
      handshakeClass: 'unknown',
      unknownReason: 'rtt-too-small',
      tlsRoundTrips: null,
    });
    expect(classifyHandshake({ timing: entry(MIN_RTT_ESTIMATE_MS, 2) })).toMatchObject({ handshakeClass: 'full-2rtt' });
  });
});

describe('Server-Timing tls metric', () => {
  it('reads nginx $ssl_protocol $ssl_session_reused', () => {
    expect(parseTlsServerTiming('TLSv1.3 r')).toEqual({ evidence: 'server-timing', tlsVersion: '1.3', resumed: true });
    expect(parseTlsServerTiming('TLSv1.2 .')).toEqual({ evidence: 'server-timing', tlsVersion: '1.2', resumed: false });
    expect(parseTlsServerTiming('TLSv1.3')).toEqual({ evidence: 'server-timing', tlsVersion: '1.3', resumed: null });
    // Caddy's placeholders (docs/server-timing.md).
    expect(parseTlsServerTiming('tls1.3 true')).toEqual({
      evidence: 'server-timing',
      tlsVersion: '1.3',
      resumed: true,
    });
    expect(parseTlsServerTiming('tls1.2 false')).toEqual({
      evidence: 'server-timing',
      tlsVersion: '1.2',
      resumed: false,
    });
  });
  it('ignores what it does not know', () => {
    expect(parseTlsServerTiming('TLSv1.1 r')).toEqual({ evidence: 'server-timing', tlsVersion: null, resumed: true });
    expect(parseTlsServerTiming('whatever')).toBeNull();
    expect(parseTlsServerTiming('')).toBeNull();
    expect(parseTlsServerTiming(undefined)).toBeNull();
    expect(tlsFromServerTiming([{ name: 'db', description: 'TLSv1.3 r' }])).toBeNull();
    expect(tlsFromServerTiming([{ name: 'tls', description: 'TLSv1.2 r' }])).toMatchObject({
      tlsVersion: '1.2',
      resumed: true,
    });
  });
});

describe('connectionKind: what Firefox shows a content script', () => {
  it('a cross-origin entry without Timing-Allow-Origin has timings but no protocol: opaque', () => {
    expect(connectionKind(entry(50, 1, { nextHopProtocol: '' }))).toBe('opaque');
  });
});

describe('0-RTT from timings: inferred only after a recent handshake with the host', () => {
  const recent = { msSincePriorHandshake: 60_000 };
  // Chromium's TCP early data (recorded fixture chromium-rtt200-tls13-warm): TLS 0.6 ms at 200 ms RTT,
  // the request after connectEnd, answered one round trip after the ClientHello.
  const early = entry(200, 0, {
    connectEnd: 10 + 200 + 0.6,
    requestStart: 10 + 200 + 1,
    responseStart: 10 + 200 + 219,
  });
  it('a TLS phase far shorter than a round trip, answered a round trip after the ClientHello, after a recent handshake: inferred', () => {
    expect(classifyHandshake({ timing: early, history: recent })).toMatchObject({
      handshakeClass: '0rtt',
      handshakeClassSource: 'inferred',
      tlsVersion: '1.3',
      tlsVersionSource: 'inferred',
      resumed: true,
      resumedSource: 'inferred',
    });
  });
  it('the same entry on a first contact (no ticket to send early data with) is unknown, not 0-RTT', () => {
    expect(classifyHandshake({ timing: early })).toMatchObject({
      handshakeClass: 'unknown',
      unknownReason: 'less-than-half-round-trip',
    });
    expect(classifyHandshake({ timing: early, history: { msSincePriorHandshake: 6 * 60_000 } })).toMatchObject({
      handshakeClass: 'unknown',
    });
  });
  it('a loaded loopback (TCP phase inflated to 30 ms, TLS 2 ms, answer 4 ms later) is unknown even after a recent handshake', () => {
    const noise = entry(30, 0, { connectEnd: 10 + 30 + 2, requestStart: 10 + 30 + 2.2, responseStart: 10 + 30 + 6 });
    expect(classifyHandshake({ timing: noise, history: recent })).toMatchObject({
      handshakeClass: 'unknown',
      unknownReason: 'less-than-half-round-trip',
    });
  });
  it('a TCP phase inflated by a SYN retransmission before an ordinary handshake is not early data', () => {
    const t = entry(40, 1, {
      connectStart: 10,
      secureConnectionStart: 1050,
      connectEnd: 1090,
      requestStart: 1090.2,
      responseStart: 1135,
    });
    expect(classifyHandshake({ timing: t, history: recent })).toMatchObject({
      handshakeClass: 'unknown',
      unknownReason: 'less-than-half-round-trip',
    });
  });
  it("QUIC: Firefox's 0-RTT connection shows no TLS phase at all; after a recent handshake that is 0-RTT, inferred, and without one no class is stated", () => {
    const quic = entry(0, 0, {
      nextHopProtocol: 'h3',
      connectStart: 12,
      secureConnectionStart: 12,
      connectEnd: 12,
      requestStart: 12,
      responseStart: 98,
    });
    expect(classifyHandshake({ timing: quic, history: recent })).toMatchObject({
      handshakeClass: '0rtt',
      handshakeClassSource: 'inferred',
      tlsVersion: '1.3',
      tlsVersionSource: 'implied',
      resumed: true,
      resumedSource: 'inferred',
    });
    // Without a history (a page's beacon keeps none) no class is stated: never 1-RTT for a connection that
    // took no time at all.
    expect(classifyHandshake({ timing: quic })).toMatchObject({
      handshakeClass: 'unknown',
      handshakeClassSource: 'unknown',
      unknownReason: 'no-handshake-time',
      tlsVersion: '1.3',
      resumed: null,
    });
    // A QUIC handshake that took any time at all stays 1-RTT.
    expect(classifyHandshake({ timing: { ...quic, connectEnd: 13, requestStart: 13 }, history: recent })).toMatchObject(
      { handshakeClass: '1rtt', resumed: true, resumedSource: 'inferred' },
    );
  });
});
