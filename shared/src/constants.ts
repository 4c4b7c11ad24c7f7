/** Constants shared by every part of tlsrum. Plain data: safe in a page, a service worker and Node. */

export const SCHEMA_VERSION = 1;
export const MAX_RECORDS_PER_BATCH = 500;
/** Upper bound of every phase duration, ms. A "handshake" longer than a minute is not a measurement. */
export const MAX_PHASE_MS = 60_000;
/** Phase durations are kept at 0.1 ms resolution. */
export const PHASE_RESOLUTION_MS = 0.1;
/** Earliest and latest acceptable timestamps (2020-01-01 and 2100-01-01, epoch ms). */
export const MIN_TS = 1_577_836_800_000;
export const MAX_TS = 4_102_444_800_000;

/** Lower-case LDH hostname (IDNA A-labels), no trailing dot, no port. */
export const HOSTNAME_PATTERN = '^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$';
const HOSTNAME_RE = new RegExp(HOSTNAME_PATTERN);
/** True for a hostname the schema accepts as `site` (at most 253 characters). */
export function isValidHostname(host: string): boolean {
  return host.length >= 1 && host.length <= 253 && HOSTNAME_RE.test(host);
}

export const ENTRY_TYPES = ['navigation', 'resource'] as const;
export const PROTOCOLS = ['http/1.1', 'h2', 'h3', 'other'] as const;
export const TRANSPORTS = ['tcp', 'quic'] as const;
export const TLS_VERSIONS = ['1.2', '1.3'] as const;
/**
 * How a field is known:
 * - observed: the browser or the server reported it for this connection (Firefox security info, CDP, NetLog);
 * - server-timing: the site's own `Server-Timing: tls;desc="…"` header said so;
 * - implied: follows with certainty from another observation (h3 ⇒ TLS 1.3);
 * - site-profile: follows from what the site's servers accept (its probes and reported records agree):
 *   the version both ends support, no resumption from a server that never resumes;
 * - inferred: a likely reading of timings or history, not a fact;
 * - unknown: nothing tells (the value is null).
 */
export const EVIDENCE_SOURCES = [
  'observed',
  'server-timing',
  'implied',
  'site-profile',
  'inferred',
  'unknown',
] as const;
export const HANDSHAKE_CLASSES = ['full-2rtt', '1rtt', '0rtt', 'unknown'] as const;
export const BROWSERS = ['chrome', 'chromium', 'edge', 'firefox', 'safari', 'other'] as const;
export const OSES = ['windows', 'macos', 'linux', 'android', 'ios', 'chromeos', 'other'] as const;
export const EFFECTIVE_TYPES = ['slow-2g', '2g', '3g', '4g'] as const;
/** page: a site's own beacon on its pages; rum: the extension's opt-in users; synthetic: the lab and the synthetic runner. */
export const RECORD_SOURCES = ['page', 'rum', 'synthetic'] as const;
/**
 * Public-key algorithm of the server's leaf certificate (its SubjectPublicKeyInfo): `other` for any
 * algorithm not listed (DSA, Ed448, post-quantum signatures …).
 */
export const CERT_KEY_TYPES = ['rsa', 'ecdsa', 'ed25519', 'other'] as const;
/** Largest key size a record may carry, in bits (RSA-16384; EC keys are 256–521). */
export const MAX_CERT_KEY_BITS = 16_384;
/** Largest certificate chain a record may carry, in DER bytes (TLS caps the Certificate message at 2^24). */
export const MAX_CERT_CHAIN_BYTES = 262_144;

export type EntryType = (typeof ENTRY_TYPES)[number];
export type Protocol = (typeof PROTOCOLS)[number];
export type Transport = (typeof TRANSPORTS)[number];
export type TlsVersion = (typeof TLS_VERSIONS)[number];
export type EvidenceSource = (typeof EVIDENCE_SOURCES)[number];
export type CertKeyType = (typeof CERT_KEY_TYPES)[number];
export type HandshakeClass = (typeof HANDSHAKE_CLASSES)[number];
export type Browser = (typeof BROWSERS)[number];
export type Os = (typeof OSES)[number];
export type RecordSource = (typeof RECORD_SOURCES)[number];

/** Rounds a duration to the record's resolution (0.1 ms). */
export function roundPhase(ms: number): number {
  return Math.round(ms * 10) / 10;
}
