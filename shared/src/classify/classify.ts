/**
 * Handshake classification: timings + whatever security information exists → class, TLS version and
 * resumption, each with how it is known. Pure and deterministic; the rules and their blind spots are
 * documented in shared/README.md ("Classification").
 */
import type { CertKeyType, EvidenceSource, HandshakeClass, Protocol, TlsVersion, Transport } from '../constants';
import { measurePhases, normaliseProtocol, transportOf, type ConnectionTiming, type Phases } from './timing';
import { profileNeverResumes, type ProfileClaims } from './site-profile';

/** What the browser (Firefox getSecurityInfo, CDP securityDetails, NetLog) or the site told us. */
export interface SecurityInfo {
  /** `observed` for the browser's own report, `server-timing` for the site's Server-Timing header. */
  evidence: 'observed' | 'server-timing';
  tlsVersion?: TlsVersion | null;
  /** Only when the source says so explicitly (NetLog is_resumed, Server-Timing). */
  resumed?: boolean | null;
  cipher?: string;
  /** Key exchange group. Firefox omits it on a TLS 1.2 session resumed by ticket: see below. */
  group?: string | null;
  signatureScheme?: string;
  certChainLength?: number;
  /** The leaf's key (shared/src/cert: leafKey) and the chain as sent (chainAsSent). */
  certKeyType?: CertKeyType;
  certKeyBits?: number | null;
  certChainBytes?: number;
  /** A stapled OCSP response came with the handshake (Firefox usedOcsp). */
  ocspStapled?: boolean;
  /** Encrypted Client Hello was used (Firefox usedEch). */
  ech?: boolean;
  /**
   * Set when the source reports key-exchange details for every full handshake (Firefox's
   * getSecurityInfo does), so that an absent `group` on TLS 1.2 means an abbreviated handshake.
   */
  reportsKeyExchange?: boolean;
}

export interface HandshakeHistory {
  /**
   * Milliseconds since this client last completed a handshake with the same host under the same
   * top-level site (browsers partition TLS sessions by it: see historyKey()), if it saw one.
   */
  msSincePriorHandshake?: number | null;
  /** How long a session ticket is assumed usable (default: the site profile's, else DEFAULT_TICKET_LIFETIME_MS). */
  ticketLifetimeMs?: number;
  /**
   * The caller records every handshake it measures (the extension's history, the lab's replay of it): no
   * prior handshake within the ticket lifetime then means the client most likely holds no ticket.
   */
  tracked?: boolean;
}

export interface ClassifyInput {
  timing: ConnectionTiming;
  security?: SecurityInfo | null;
  history?: HandshakeHistory | null;
  /** What the site's profile says for this browser (profileClaims()); never overrides `security`. */
  profile?: ProfileClaims | null;
}

export interface Classification {
  protocol: Protocol;
  transport: Transport;
  handshakeClass: HandshakeClass;
  tlsVersion: TlsVersion | null;
  tlsVersionSource: EvidenceSource;
  resumed: boolean | null;
  resumedSource: EvidenceSource;
  phases: Phases;
  /** How the class is known (not stored in the record; the accuracy report scores by it). */
  handshakeClassSource: HandshakeClassSource;
  /** Round trips spent in the TLS phase, measured against the TCP handshake (null when not countable). */
  tlsRoundTrips: number | null;
  /** Why the class is `unknown`, for the accuracy report and the popup. */
  unknownReason?: UnknownReason;
}

export type UnknownReason =
  'rtt-too-small' | 'more-than-two-round-trips' | 'less-than-half-round-trip' | 'no-handshake-time';

/**
 * - `implied`: by the order of events (the request left before the connection was up: 0-RTT) or by the
 *   transport (QUIC's handshake is one round trip by design).
 * - `timing`: round trips counted against the TCP phase.
 * - `inferred`: 0-RTT read from a TLS phase too short for any reply, only after a recent handshake with
 *   the host (0-RTT needs a ticket) and, over TCP, an answer no sooner than half a round trip after the
 *   ClientHello (see earlyDataInferred()); never stated as more than an inference.
 * - `unknown`: no class.
 */
export type HandshakeClassSource = 'implied' | 'timing' | 'inferred' | 'unknown';

/**
 * Below this TCP connect time the round-trip estimate is dominated by scheduling, the server's crypto
 * CPU time (≈ 1–3 ms for a full handshake) and, in Firefox, whole-millisecond timings: dividing by it
 * counts noise (loopback, same-host proxies, a CDN edge a few km away). Such paths are `unknown`.
 */
export const MIN_RTT_ESTIMATE_MS = 10;
/** Conservative session ticket lifetime: nginx's default ssl_session_timeout is 5 min, many CDNs use hours. */
export const DEFAULT_TICKET_LIFETIME_MS = 5 * 60_000;
/**
 * A TLS phase under this fraction of the RTT estimate: the client declared the connection ready before
 * any server flight could have reached it — it sent early data. Chromium with TLS 1.3 early data over
 * TCP reports connectEnd right after the ClientHello (tls ≈ 0.5 ms at 100 ms RTT, request after
 * connectEnd), so `requestStart < connectEnd` does not show it.
 */
export const EARLY_DATA_BELOW = 0.25;
/**
 * …and under this many milliseconds: a TCP phase inflated by a SYN retransmission (+1 s) followed by an
 * ordinary handshake also gives a small ratio, but its TLS phase is still a real round trip, rarely < 3 ms
 * on paths whose RTT is worth counting.
 */
export const EARLY_DATA_MAX_TLS_MS = 3;
/**
 * …and the response's first byte no sooner than this many round trips after the TLS start: a request
 * sent as early data is answered one round trip after the ClientHello at the earliest. A TCP phase
 * inflated by a busy machine on a near-zero path (the lab's loopback: TCP 10–36 ms, TLS 1.5–3 ms, the
 * response 2–5 ms later) fails this, as no real path can answer within half its own round trip.
 */
export const EARLY_ANSWER_FROM = 0.5;

/**
 * Whether a TLS phase too short for any server reply means early data (0-RTT), `inferred`. Only with a
 * resumption history — a handshake with the same host within the ticket lifetime: 0-RTT needs a ticket
 * from an earlier session, so a first contact never qualifies (the loaded-loopback readings the lab saw
 * were first contacts). Over TCP: TLS phase < ¼ of the TCP phase and < 3 ms, and the answer no sooner
 * than half a round trip after the ClientHello (Chromium's TCP early data: TLS 0.6 ms, answer 1.09 RTT
 * after it, at 200 ms RTT). Over QUIC (no RTT estimate): a TLS phase of exactly 0 — Firefox marks a
 * QUIC connection that sends 0-RTT as established the moment it starts (4 of 4 in the lab), while a
 * QUIC handshake takes at least the server's flight and certificate verification (≥ 2 ms on loopback).
 */
function earlyDataInferred(
  timing: ConnectionTiming,
  phases: Phases,
  transport: Transport,
  history: HandshakeHistory | null | undefined,
): boolean {
  if (!recentHandshake(history)) return false;
  if (transport === 'quic') return timing.connectEnd === timing.secureConnectionStart;
  const answeredAfter = timing.responseStart - timing.secureConnectionStart;
  return (
    phases.tls / phases.tcp < EARLY_DATA_BELOW &&
    phases.tls < EARLY_DATA_MAX_TLS_MS &&
    answeredAfter >= EARLY_ANSWER_FROM * phases.tcp
  );
}

/** The client completed a handshake with this host within the ticket lifetime. */
function recentHandshake(history: HandshakeHistory | null | undefined): boolean {
  const since = history?.msSincePriorHandshake;
  return typeof since === 'number' && since >= 0 && since <= (history?.ticketLifetimeMs ?? DEFAULT_TICKET_LIFETIME_MS);
}

/** The history with the site profile's real ticket lifetime, unless the caller set one. */
function withProfileLifetime(
  history: HandshakeHistory | null | undefined,
  profile: ProfileClaims | null | undefined,
): HandshakeHistory | null | undefined {
  if (!history || history.ticketLifetimeMs !== undefined || !profile?.ticketLifetimeMs) return history;
  return { ...history, ticketLifetimeMs: profile.ticketLifetimeMs };
}

/** The profile says this server sends no early data: a short TLS phase is not 0-RTT. */
const profileRulesOutEarlyData = (profile: ProfileClaims | null | undefined) =>
  profile?.earlyData === false || profile?.tlsVersion === '1.2';

/** Round-trip count boundaries: half way between whole round trips, tolerant of server CPU time. */
const ONE_RTT_FROM = 0.5;
const TWO_RTT_FROM = 1.6;
const MORE_THAN_TWO_FROM = 2.6;

export function classifyHandshake({ timing, security, history: given, profile }: ClassifyInput): Classification {
  const history = withProfileLifetime(given, profile);
  const mayInferEarlyData = !profileRulesOutEarlyData(profile);
  const protocol = normaliseProtocol(timing.nextHopProtocol);
  const transport = transportOf(protocol);
  const phases = measurePhases(timing);

  // The request left before the connection was established: early data (TLS 1.3 0-RTT over TCP, or
  // QUIC 0-RTT). Only a resumed TLS 1.3 session can do that.
  const earlyData = timing.requestStart > 0 && timing.requestStart < timing.connectEnd;

  let handshakeClass: HandshakeClass;
  let tlsRoundTrips: number | null = null;
  let unknownReason: UnknownReason | undefined;
  // How 0-RTT is known: from the order of events (certain) or from a TLS phase too short for a reply.
  let zeroRtt: 'implied' | 'inferred' | null = null;
  if (earlyData) {
    zeroRtt = 'implied';
    handshakeClass = '0rtt';
    tlsRoundTrips = 0;
  } else if (transport === 'quic' && mayInferEarlyData && earlyDataInferred(timing, phases, transport, history)) {
    handshakeClass = '0rtt';
    zeroRtt = 'inferred';
    tlsRoundTrips = 0;
  } else if (transport === 'quic' && timing.connectEnd === timing.secureConnectionStart) {
    // Established the moment it started: no QUIC handshake takes no time (the server's flight and the
    // certificate check alone take milliseconds), so this is early data the history cannot confirm (a
    // page's beacon keeps none). Stating 1-RTT would be wrong; 0-RTT is not stated without a history.
    handshakeClass = 'unknown';
    unknownReason = 'no-handshake-time';
  } else if (transport === 'quic') {
    // QUIC has no separate TCP phase to estimate the RTT from; its handshake is 1 RTT by design
    // (a Retry or version negotiation adds one, which we cannot see).
    handshakeClass = '1rtt';
    tlsRoundTrips = 1;
  } else if (phases.tcp < MIN_RTT_ESTIMATE_MS) {
    handshakeClass = 'unknown';
    unknownReason = 'rtt-too-small';
  } else {
    // TCP's handshake costs exactly one round trip: use it as this path's RTT.
    tlsRoundTrips = phases.tls / phases.tcp;
    if (mayInferEarlyData && earlyDataInferred(timing, phases, transport, history)) {
      handshakeClass = '0rtt';
      zeroRtt = 'inferred';
    } else if (tlsRoundTrips >= MORE_THAN_TWO_FROM) {
      handshakeClass = 'unknown';
      unknownReason = 'more-than-two-round-trips';
    } else if (tlsRoundTrips >= TWO_RTT_FROM) handshakeClass = 'full-2rtt';
    else if (tlsRoundTrips >= ONE_RTT_FROM) handshakeClass = '1rtt';
    else {
      handshakeClass = 'unknown';
      unknownReason = 'less-than-half-round-trip';
    }
    tlsRoundTrips = Math.round(tlsRoundTrips * 100) / 100;
  }

  const version = tlsVersionOf(security, transport, handshakeClass, zeroRtt, profile);
  const resumption = resumptionOf(security, version.tlsVersion, handshakeClass, history, zeroRtt, transport, profile);

  const handshakeClassSource: HandshakeClassSource =
    handshakeClass === 'unknown' ? 'unknown' : (zeroRtt ?? (transport === 'quic' ? 'implied' : 'timing'));

  return {
    protocol,
    transport,
    handshakeClass,
    handshakeClassSource,
    ...version,
    ...resumption,
    phases,
    tlsRoundTrips,
    ...(unknownReason ? { unknownReason } : {}),
  };
}

function tlsVersionOf(
  security: SecurityInfo | null | undefined,
  transport: Transport,
  handshakeClass: HandshakeClass,
  zeroRtt: 'implied' | 'inferred' | null,
  profile: ProfileClaims | null | undefined,
): { tlsVersion: TlsVersion | null; tlsVersionSource: EvidenceSource } {
  if (security?.tlsVersion) return { tlsVersion: security.tlsVersion, tlsVersionSource: security.evidence };
  // QUIC carries TLS 1.3 only (RFC 9001); early data exists only in TLS 1.3 (RFC 8446 §2.3).
  if (transport === 'quic') return { tlsVersion: '1.3', tlsVersionSource: 'implied' };
  if (zeroRtt === 'implied') return { tlsVersion: '1.3', tlsVersionSource: 'implied' };
  // The negotiated version is the highest both ends support: known once every source agrees on what
  // the site's servers accept.
  if (profile?.tlsVersion) return { tlsVersion: profile.tlsVersion, tlsVersionSource: 'site-profile' };
  if (zeroRtt) return { tlsVersion: '1.3', tlsVersionSource: zeroRtt };
  // Two round trips: a full TLS 1.2 handshake without False Start. A TLS 1.3 HelloRetryRequest costs
  // two as well, so this stays an inference.
  if (handshakeClass === 'full-2rtt') return { tlsVersion: '1.2', tlsVersionSource: 'inferred' };
  return { tlsVersion: null, tlsVersionSource: 'unknown' };
}

function resumptionOf(
  security: SecurityInfo | null | undefined,
  tlsVersion: TlsVersion | null,
  handshakeClass: HandshakeClass,
  history: HandshakeHistory | null | undefined,
  zeroRtt: 'implied' | 'inferred' | null,
  transport: Transport,
  profile: ProfileClaims | null | undefined,
): { resumed: boolean | null; resumedSource: EvidenceSource } {
  if (security && typeof security.resumed === 'boolean')
    return { resumed: security.resumed, resumedSource: security.evidence };
  // 0-RTT needs a pre-shared key from an earlier session.
  if (zeroRtt) return { resumed: true, resumedSource: zeroRtt };
  // A server that never resumes (for the version negotiated, or for any version it accepts) makes every
  // handshake with it a full one. The probe tests TCP; QUIC's tickets are the h3 endpoint's own.
  if (profile && transport === 'tcp' && profileNeverResumes(profile, tlsVersion))
    return { resumed: false, resumedSource: 'site-profile' };
  // Firefox reports the key exchange group of every full handshake; a TLS 1.2 ticket resumption has
  // no key exchange, so the group is absent. (TLS 1.3 resumption uses PSK-DHE: it looks like a full one.)
  if (security?.reportsKeyExchange && tlsVersion === '1.2') {
    return { resumed: !security.group, resumedSource: 'observed' };
  }
  // An abbreviated TLS 1.2 handshake costs one round trip; two mean a full one.
  if (handshakeClass === 'full-2rtt') return { resumed: false, resumedSource: 'inferred' };
  if (recentHandshake(history)) {
    // A recent handshake with this host makes a resumption attempt likely, not certain: the server
    // may refuse the ticket.
    return { resumed: true, resumedSource: 'inferred' };
  }
  // With the site's real ticket lifetime, no handshake seen within it (none at all, or an older one whose
  // ticket has expired) means the client had no usable ticket: a full handshake. Inferred, not observed: a
  // handshake the tracker could not see (before opt-in, without Timing-Allow-Origin) may have left one.
  if (profile && transport === 'tcp' && history?.tracked && !recentHandshake(history)) {
    const since = history.msSincePriorHandshake;
    if (since === null || since === undefined || profile.ticketLifetimeMs !== null)
      return { resumed: false, resumedSource: 'inferred' };
  }
  return { resumed: null, resumedSource: 'unknown' };
}
