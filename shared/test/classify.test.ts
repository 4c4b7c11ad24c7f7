import { describe, expect, it } from 'vitest';
import { classifyHandshake, connectionKind, measurePhases, type ConnectionTiming } from '../src/index';

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
    expect(connectionKind(entry(50, 1, { connectStart: 5, secureConnectionStart: 5, connectEnd: 5, domainLookupEnd: 5 }))).toBe('reused');
    const zeros = { domainLookupStart: 0, domainLookupEnd: 0, connectStart: 0, secureConnectionStart: 0, connectEnd: 0, requestStart: 0, responseStart: 0, nextHopProtocol: '' };
    expect(connectionKind(entry(50, 1, zeros))).toBe('opaque');
    expect(connectionKind(entry(50, 1, { secureConnectionStart: 0 }))).toBe('insecure');
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
    expect(c).toMatchObject({ handshakeClass: 'full-2rtt', tlsVersion: '1.2', tlsVersionSource: 'inferred', resumed: false, resumedSource: 'inferred', transport: 'tcp' });
  });
  it('one round trip: TLS 1.2 False Start, TLS 1.3 full and resumed look alike; nothing is claimed', () => {
    const c = classifyHandshake({ timing: entry(80, 1) });
    expect(c).toMatchObject({ handshakeClass: '1rtt', tlsVersion: null, tlsVersionSource: 'unknown', resumed: null, resumedSource: 'unknown' });
  });
  it('request before connectEnd: 0-RTT, which implies a resumed TLS 1.3 session', () => {
    const e = entry(80, 1);
    const c = classifyHandshake({ timing: { ...e, requestStart: e.secureConnectionStart + 0.3 } });
    expect(c).toMatchObject({ handshakeClass: '0rtt', tlsVersion: '1.3', tlsVersionSource: 'implied', resumed: true, resumedSource: 'implied' });
  });
  it('h3 implies TLS 1.3 over QUIC and a 1-RTT handshake', () => {
    const e = entry(80, 1, { nextHopProtocol: 'h3' });
    const c = classifyHandshake({ timing: { ...e, secureConnectionStart: e.connectStart } });
    expect(c).toMatchObject({ protocol: 'h3', transport: 'quic', handshakeClass: '1rtt', tlsVersion: '1.3', tlsVersionSource: 'implied' });
  });
  it('a TCP connect too short to be a round trip makes the class unknown', () => {
    expect(classifyHandshake({ timing: entry(0.3, 1) })).toMatchObject({ handshakeClass: 'unknown', unknownReason: 'rtt-too-small' });
  });
  it('more than two round trips is not forced into a class', () => {
    expect(classifyHandshake({ timing: entry(40, 3) })).toMatchObject({ handshakeClass: 'unknown', unknownReason: 'more-than-two-round-trips' });
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
    const c = classifyHandshake({ timing: entry(80, 1), security: { source: 'observed', tlsVersion: '1.2', group: 'x25519', reportsKeyExchange: true } });
    expect(c).toMatchObject({ tlsVersion: '1.2', tlsVersionSource: 'observed', resumed: false, resumedSource: 'observed' });
  });
  it('Firefox TLS 1.2 without a group: resumed by ticket, observed', () => {
    const c = classifyHandshake({ timing: entry(80, 1), security: { source: 'observed', tlsVersion: '1.2', reportsKeyExchange: true } });
    expect(c).toMatchObject({ resumed: true, resumedSource: 'observed' });
  });
  it('Firefox TLS 1.3: version observed, resumption not observable', () => {
    const c = classifyHandshake({ timing: entry(80, 1), security: { source: 'observed', tlsVersion: '1.3', group: 'X25519MLKEM768', reportsKeyExchange: true } });
    expect(c).toMatchObject({ tlsVersion: '1.3', tlsVersionSource: 'observed', resumed: null, resumedSource: 'unknown' });
  });
  it('Server-Timing from the site is the source of truth for version and resumption', () => {
    const c = classifyHandshake({ timing: entry(80, 2), security: { source: 'server-timing', tlsVersion: '1.3', resumed: true } });
    expect(c).toMatchObject({ tlsVersion: '1.3', tlsVersionSource: 'server-timing', resumed: true, resumedSource: 'server-timing' });
  });
});
