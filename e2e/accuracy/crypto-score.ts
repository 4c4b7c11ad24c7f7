/**
 * The crypto lens scored: every crypto field a record states — cipher, group, signature scheme,
 * chain length and bytes, leaf key type and size, OCSP stapling, ECH — against what the server did. The
 * server's truth: cipher and group from its own log per connection (nginx `$ssl_cipher` / `$ssl_curve`;
 * the Node servers accept one group only); key, chain and stapling from its configuration
 * (crypto-servers.ts), chain bytes measured from the files it serves; the signature scheme the leaf's key
 * implies with both browsers' preferences (ECDSA P-256 → ecdsa_secp256r1_sha256, RSA → rsa_pss_rsae_sha256,
 * the first RSA scheme TLS 1.3 allows that they offer); no ECH anywhere in the lab.
 *
 * A field the record leaves out is not a wrong claim: it is counted as coverage instead (the synthetic
 * arm on full handshakes should state them all).
 */
import type { HandshakeRecord } from '@tlsrum/shared';
import { cryptoOf } from '../lab/crypto-servers';
import type { ServerSpec } from '../lab/servers';
import type { Sample } from './samples';
import type { Truth } from './truth';

export const CRYPTO_FIELDS = [
  'cipher',
  'group',
  'signatureScheme',
  'certChainLength',
  'certChainBytes',
  'certKeyType',
  'certKeyBits',
  'ocspStapled',
  'ech',
] as const;
export type CryptoField = (typeof CRYPTO_FIELDS)[number];
export type CryptoValues = Partial<Record<CryptoField, string | number | boolean | null>>;

/** What the server did on this connection; null: not known, so not scored. */
export function cryptoTruthOf(server: ServerSpec, t: Truth, chainBytes: number | null): CryptoValues {
  const c = cryptoOf(server);
  // A resumption sends no certificate and staples nothing: those facts belong to the first handshake.
  const full = t.resumed === false;
  return {
    cipher: t.cipher,
    group: t.group ?? null,
    signatureScheme: c.keyType === 'ecdsa' ? 'ecdsa_secp256r1_sha256' : 'rsa_pss_rsae_sha256',
    certChainLength: c.chainDepth,
    certChainBytes: chainBytes,
    certKeyType: c.keyType,
    certKeyBits: c.keyBits,
    ocspStapled: full ? c.ocspStapled : null,
    ech: false,
  };
}

/** The crypto fields a record (or a stored row: empty strings and nulls mean absent) states. */
export function claimedCryptoOf(r: Partial<HandshakeRecord> & { keyExchangeGroup?: string }): CryptoValues {
  const out: CryptoValues = {};
  const raw: Record<CryptoField, unknown> = {
    cipher: r.cipher,
    group: r.group ?? r.keyExchangeGroup,
    signatureScheme: r.signatureScheme,
    certChainLength: r.certChainLength,
    certChainBytes: r.certChainBytes,
    certKeyType: r.certKeyType,
    certKeyBits: r.certKeyBits,
    ocspStapled: r.ocspStapled,
    ech: r.ech,
  };
  for (const f of CRYPTO_FIELDS) {
    const v = raw[f];
    if (v === undefined || v === null || v === '') continue;
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') out[f] = v;
  }
  return out;
}

const OPENSSL_TLS12: Record<string, string> = {
  'ECDHE-ECDSA-AES128-GCM-SHA256': 'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256',
  'ECDHE-ECDSA-AES256-GCM-SHA384': 'TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384',
  'ECDHE-ECDSA-CHACHA20-POLY1305': 'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256',
  'ECDHE-RSA-AES128-GCM-SHA256': 'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256',
  'ECDHE-RSA-AES256-GCM-SHA384': 'TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384',
  'ECDHE-RSA-CHACHA20-POLY1305': 'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256',
};
const GROUP_ALIASES: Record<string, string> = {
  prime256v1: 'p256',
  secp256r1: 'p256',
  p256: 'p256',
  secp384r1: 'p384',
  p384: 'p384',
  mlkem768x25519: 'x25519mlkem768',
};
const SCHEME_ALIASES: Record<string, string> = {
  ecdsap256sha256: 'ecdsasecp256r1sha256',
  rsapsssha256: 'rsapssrsaesha256',
  rsapsssha384: 'rsapssrsaesha384',
  rsapkcs1sha256: 'rsapkcs1sha256',
};
const squash = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '');

/** One spelling per value: OpenSSL and IANA cipher names, and the browsers' and OpenSSL's group and scheme names, compare equal. */
export function normalise(field: CryptoField, v: string | number | boolean): string {
  if (typeof v !== 'string') return String(v);
  if (field === 'cipher') return OPENSSL_TLS12[v] ?? v.toUpperCase();
  if (field === 'group') return GROUP_ALIASES[squash(v)] ?? squash(v);
  if (field === 'signatureScheme') return SCHEME_ALIASES[squash(v)] ?? squash(v);
  return squash(v);
}

/**
 * What each browser's synthetic source can state on a full handshake. Firefox has no stapling fact:
 * getSecurityInfo's usedOcsp means Firefox fetched OCSP itself (madeOCSPRequests), not a stapled response.
 */
export const SYNTHETIC_FIELDS: Record<Sample['browser'], readonly CryptoField[]> = {
  chromium: CRYPTO_FIELDS,
  firefox: CRYPTO_FIELDS.filter((f) => f !== 'ocspStapled'),
};

export interface CryptoFieldScore {
  n: number;
  correct: number;
  /** Synthetic arm, full handshakes with a known truth: how often the record stated the field. */
  stated: number;
  expected: number;
  /** Up to five wrong claims, "server browser: claimed ≠ truth". */
  wrong: string[];
}

export interface CryptoScore {
  fields: Record<CryptoField, CryptoFieldScore>;
  /** Share of the crypto fields records state that match the server (null: none stated). */
  accuracy: number | null;
  n: number;
  /** Share of the fields the synthetic arm should state (full handshakes, truth known) that it did. */
  coverage: number | null;
}

export function scoreCrypto(samples: readonly Sample[]): CryptoScore {
  const fields = Object.fromEntries(
    CRYPTO_FIELDS.map((f): [CryptoField, CryptoFieldScore] => [
      f,
      { n: 0, correct: 0, stated: 0, expected: 0, wrong: [] },
    ]),
  ) as Record<CryptoField, CryptoFieldScore>;
  for (const s of samples) {
    if (!s.cryptoTruth || !s.cryptoClaimed) continue;
    for (const f of CRYPTO_FIELDS) {
      const truth = s.cryptoTruth[f];
      const claim = s.cryptoClaimed[f];
      if (truth === null || truth === undefined) continue;
      const score = fields[f];
      if (s.arm === 'synthetic' && s.truth.resumed === false && SYNTHETIC_FIELDS[s.browser].includes(f)) {
        score.expected++;
        if (claim !== undefined && claim !== null) score.stated++;
      }
      if (claim === undefined || claim === null) continue;
      score.n++;
      if (normalise(f, claim) === normalise(f, truth)) score.correct++;
      else if (score.wrong.length < 5)
        score.wrong.push(`${s.server} ${s.browser} ${s.arm}: ${String(claim)} ≠ ${String(truth)}`);
    }
  }
  const all = Object.values(fields);
  const n = all.reduce((a, x) => a + x.n, 0);
  const expected = all.reduce((a, x) => a + x.expected, 0);
  return {
    fields,
    n,
    accuracy: n ? all.reduce((a, x) => a + x.correct, 0) / n : null,
    coverage: expected ? all.reduce((a, x) => a + x.stated, 0) / expected : null,
  };
}
