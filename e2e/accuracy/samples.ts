/**
 * One sample = one measured TLS connection as one arm recorded it, joined to the server's log line for
 * the same connection (ground truth) and to the proxy's log line (the delay actually injected).
 */
import type { HandshakeClass, HandshakeClassSource, HandshakeRecord, TlsVersion } from '@tlsrum/shared';
import type { EvidenceSource } from '@tlsrum/shared/constants';
import { classifyHandshake } from '@tlsrum/shared/classify';
import type { ServerId } from '../lab/servers';
import type { CryptoValues } from './crypto-score';
import type { ProxyLine, Truth } from './truth';

/**
 * - `synthetic`: the synthetic runner's record (CDP securityDetails + NetLog, exact where it can be).
 * - `rum`: what the extension computes in Chromium from the same timing entry: no security info, only
 *   the timings, the site's Server-Timing header and its own history of handshakes with the host.
 * - `extension`: the records the built extension itself produced in the browser (Chromium or Firefox)
 *   and sent to the real collector (extension-arm.ts).
 * - `beacon`: the records the collector made of the served site beacon's page views (beacon-arm.ts).
 */
export type Arm = 'synthetic' | 'rum' | 'extension' | 'beacon';

export interface ClaimedFields {
  tlsVersion: TlsVersion | null;
  tlsVersionSource: EvidenceSource;
  resumed: boolean | null;
  resumedSource: EvidenceSource;
  handshakeClass: HandshakeClass;
  /** How the class is known (the classifier's, not stored in the record: re-derived for the extension arm). */
  handshakeClassSource: HandshakeClassSource;
  unknownReason?: string;
  protocol: string;
  tcp: number;
  tls: number;
}

export interface Expected {
  tlsVersion: TlsVersion | null;
  resumed: boolean | null;
  handshakeClass: HandshakeClass;
  /** Round trips the TLS phase should cost: 2 for a full TLS 1.2 handshake without False Start, else 1. */
  rttMultiple: number;
}

export interface Sample {
  arm: Arm;
  browser: 'chromium' | 'firefox';
  mode: 'cold' | 'warm';
  prime: boolean;
  profile: string;
  rttMs: number;
  server: ServerId;
  host: string;
  entryType: 'navigation' | 'resource';
  /** Connection identity (server + port the server saw): both arms' samples of one connection share it. */
  connection: string;
  truth: Truth;
  expected: Expected;
  claimed: ClaimedFields;
  proxy: ProxyLine | null;
  /** What the server did (crypto-score.ts); absent in samples saved before the crypto lens. */
  cryptoTruth?: CryptoValues;
  /** The crypto fields the record states (synthetic and extension arms; the rum arm has none). */
  cryptoClaimed?: CryptoValues;
}

/**
 * What a connection should look like, from the server's truth. Round trips before the request can go:
 * a full TLS 1.2 handshake takes two unless the client uses False Start, which Chromium does when ALPN
 * was negotiated (and a forward-secret AEAD suite). Firefox (ESR 153 in this lab) does not show it: on
 * every full TLS 1.2 handshake of the lab, with or without ALPN, its `connectEnd` − `secureConnectionStart`
 * is two round trips (e.g. 43–47 ms at 20 ms, 163–167 ms at 80 ms) and its request starts after it.
 */
export function expectedOf(truth: Truth, browser: 'chromium' | 'firefox'): Expected {
  const resumed = truth.resumed;
  const early = truth.earlyData === true;
  // The ALPN the server logged: Chromium false-starts only when one was negotiated.
  const falseStart = browser === 'chromium' && truth.alpn !== null;
  const full2 = truth.tlsVersion === '1.2' && !falseStart && resumed === false;
  return {
    tlsVersion: truth.tlsVersion,
    resumed,
    handshakeClass: early ? '0rtt' : full2 ? 'full-2rtt' : '1rtt',
    rttMultiple: full2 ? 2 : 1,
  };
}

/** What the classifier knew beyond the record: how the class is known and why it is unknown. */
export interface ClassDerivation {
  handshakeClassSource: HandshakeClassSource;
  unknownReason?: string | undefined;
}

/**
 * A record keeps phases, not the timing entry: the classifier's reason for `unknown` and how it knew the
 * class are re-derived from them. A 0-RTT class is `inferred` when the phases fit the timing rule given
 * a resumption history (which the record was classified with, and which the phases do not keep), else
 * it was known from the order of events — a request that left before `connectEnd` — `implied`.
 */
export function classDerivationOf(
  c: Pick<HandshakeRecord, 'entryType' | 'tcp' | 'tls' | 'handshakeClass'> & { protocol: string },
): ClassDerivation {
  const connectEnd = c.tcp + c.tls;
  const timing = {
    entryType: c.entryType,
    nextHopProtocol: c.protocol,
    startTime: 0,
    fetchStart: 0,
    domainLookupStart: 0,
    domainLookupEnd: 0,
    connectStart: 0,
    secureConnectionStart: c.tcp,
    connectEnd,
    requestStart: connectEnd,
    responseStart: connectEnd,
  };
  const fromPhases = classifyHandshake({ timing });
  if (c.handshakeClass === '0rtt' && fromPhases.handshakeClass !== '0rtt') {
    // The answer's timing is not in the record either: assume the most favourable one.
    const withHistory = classifyHandshake({
      timing: { ...timing, responseStart: connectEnd + c.tcp },
      history: { msSincePriorHandshake: 0 },
    });
    return { handshakeClassSource: withHistory.handshakeClassSource === 'inferred' ? 'inferred' : 'implied' };
  }
  return { handshakeClassSource: fromPhases.handshakeClassSource, unknownReason: fromPhases.unknownReason };
}

/**
 * How the class of a record was known, when its timing entry is at hand: the entry shows the order of
 * events, so a 0-RTT class that a history-less reading of it does not give came from the history rule.
 */
export function derivationWithTiming(
  recordClass: HandshakeRecord['handshakeClass'],
  fromTiming: ClassDerivation & { handshakeClass: string },
): ClassDerivation {
  if (recordClass === '0rtt' && fromTiming.handshakeClass !== '0rtt') return { handshakeClassSource: 'inferred' };
  return { handshakeClassSource: fromTiming.handshakeClassSource, unknownReason: fromTiming.unknownReason };
}

/**
 * The fields a record (or the classification a record is made of) claims; the class's source and
 * `unknownReason` (not in the record) come from the classifier.
 */
export function claimedOfRecord(
  r: Pick<
    HandshakeRecord,
    'tlsVersion' | 'tlsVersionSource' | 'resumed' | 'resumedSource' | 'handshakeClass' | 'protocol' | 'tcp' | 'tls'
  >,
  derived: ClassDerivation,
): ClaimedFields {
  return {
    tlsVersion: r.tlsVersion,
    tlsVersionSource: r.tlsVersionSource,
    resumed: r.resumed,
    resumedSource: r.resumedSource,
    handshakeClass: r.handshakeClass,
    handshakeClassSource: derived.handshakeClassSource,
    ...(r.handshakeClass === 'unknown' && derived.unknownReason ? { unknownReason: derived.unknownReason } : {}),
    protocol: r.protocol,
    tcp: r.tcp,
    tls: r.tls,
  };
}
