/**
 * The Configuration checklist of a probed site (dashboard "Configuration" panel): each item read from a
 * probe result (shared/src/probe.ts), the sentence a site owner reads, and the what-if scenario that prices
 * turning it on from the site's own field data. Plain data and functions: safe in a page.
 */
import type { ProbeResult } from './probe';
import type { ScenarioName } from './query/answers';

export interface ChecklistItem {
  id: string;
  label: string;
  /** true = done, false = not done, null = not measurable (unreachable, or not testable by this prober). */
  check: (r: ProbeResult) => boolean | null;
  /** Why it matters, when it is not done: one sentence. */
  advice: string;
  /** The what-if scenario that prices it (null: it changes security, not speed). */
  scenario: ScenarioName | null;
}

const reached = (r: ProbeResult) => r.tls.negotiated.version !== null;

export const PROBE_CHECKLIST: readonly ChecklistItem[] = [
  {
    id: 'tls13',
    label: 'TLS 1.3',
    check: (r) => r.tls.versions['1.3'],
    advice: 'Turn on TLS 1.3: a new visitor connects one round trip sooner than with TLS 1.2.',
    scenario: 'tls13',
  },
  {
    id: 'tickets',
    label: 'Session resumption (tickets)',
    check: (r) => {
      const v = [r.resumption['1.3'], r.resumption['1.2']];
      return v.includes(true) ? true : v.includes(false) ? false : null;
    },
    advice: 'Make session resumption work (session tickets with keys shared by every server): returning visitors skip the full handshake.',
    scenario: 'resumption',
  },
  {
    id: 'zero_rtt',
    label: '0-RTT early data',
    check: (r) => r.earlyData.allowed,
    advice: 'Allow 0-RTT early data for safe (GET) requests: a returning visitor sends its request without waiting for the handshake.',
    scenario: 'zero_rtt',
  },
  {
    id: 'h3',
    label: 'HTTP/3 advertised',
    check: (r) => (reached(r) ? r.h3.advertised : null),
    advice: 'Offer HTTP/3 (an Alt-Svc header): QUIC sets up transport and encryption in one round trip.',
    scenario: 'http3',
  },
  {
    id: 'ocsp',
    label: 'OCSP stapling',
    check: (r) => r.ocsp.stapled,
    advice: "Staple the certificate's OCSP response: browsers that check revocation need not ask the certificate authority.",
    scenario: 'ocsp_stapled',
  },
  {
    id: 'chain',
    label: 'Certificate chain of at most 2',
    check: (r) => (r.cert.leaf ? r.cert.chainLength <= 2 : null),
    advice: 'Send only your certificate and its issuer (not the root or a cross-signature): fewer bytes before the page can start.',
    scenario: 'shorter_chain',
  },
  {
    id: 'leaf',
    label: 'ECDSA or RSA-2048 certificate key',
    check: (r) => (r.cert.leaf ? r.cert.leaf.keyType === 'ecdsa' || r.cert.leaf.keyType === 'ed25519' || (r.cert.leaf.keyType === 'rsa' && (r.cert.leaf.keyBits ?? 0) <= 2048) : null),
    advice: 'Use an ECDSA P-256 certificate (or RSA-2048): larger RSA keys cost the server milliseconds of signing on every full handshake.',
    scenario: 'ecdsa_leaf',
  },
  {
    id: 'pq',
    label: 'Post-quantum key exchange',
    check: (r) => r.pq.supported,
    advice: 'Offer the X25519MLKEM768 hybrid key exchange (OpenSSL 3.5+, recent Go, BoringSSL): protects today\'s traffic against future quantum decryption; no speed change.',
    scenario: null,
  },
];
