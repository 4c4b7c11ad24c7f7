/**
 * IANA code points → names, for the NetLog's numeric cipher suite, key exchange group and signature
 * algorithm. Records carry the IANA names (the same spelling Firefox's getSecurityInfo uses for cipher
 * suites), so synthetic and RUM records compare. An unlisted code point is written as 0xHHHH.
 */

const CIPHER_SUITES: Record<number, string> = {
  0x1301: 'TLS_AES_128_GCM_SHA256',
  0x1302: 'TLS_AES_256_GCM_SHA384',
  0x1303: 'TLS_CHACHA20_POLY1305_SHA256',
  0xc02b: 'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256',
  0xc02c: 'TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384',
  0xc02f: 'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256',
  0xc030: 'TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384',
  0xcca8: 'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256',
  0xcca9: 'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256',
  0xc013: 'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA',
  0xc014: 'TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA',
  0xc009: 'TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA',
  0xc00a: 'TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA',
  0x009c: 'TLS_RSA_WITH_AES_128_GCM_SHA256',
  0x009d: 'TLS_RSA_WITH_AES_256_GCM_SHA384',
  0x002f: 'TLS_RSA_WITH_AES_128_CBC_SHA',
  0x0035: 'TLS_RSA_WITH_AES_256_CBC_SHA',
};

const GROUPS: Record<number, string> = {
  23: 'secp256r1',
  24: 'secp384r1',
  25: 'secp521r1',
  29: 'x25519',
  30: 'x448',
  0x11ec: 'X25519MLKEM768',
  0x6399: 'X25519Kyber768Draft00',
};

const SIGNATURE_SCHEMES: Record<number, string> = {
  0x0401: 'rsa_pkcs1_sha256',
  0x0501: 'rsa_pkcs1_sha384',
  0x0601: 'rsa_pkcs1_sha512',
  0x0403: 'ecdsa_secp256r1_sha256',
  0x0503: 'ecdsa_secp384r1_sha384',
  0x0603: 'ecdsa_secp521r1_sha512',
  0x0804: 'rsa_pss_rsae_sha256',
  0x0805: 'rsa_pss_rsae_sha384',
  0x0806: 'rsa_pss_rsae_sha512',
  0x0807: 'ed25519',
  0x0201: 'rsa_pkcs1_sha1',
};

const hex = (n: number) => `0x${n.toString(16).padStart(4, '0')}`;

export const cipherSuiteName = (n: number): string => CIPHER_SUITES[n] ?? hex(n);
export const groupName = (n: number): string => GROUPS[n] ?? hex(n);
export const signatureSchemeName = (n: number): string => SIGNATURE_SCHEMES[n] ?? hex(n);

/** "TLS 1.3" (NetLog, CDP) / "TLSv1.3" (Firefox) → the record's version, or null for anything else. */
export function tlsVersionOf(s: string | null | undefined): '1.2' | '1.3' | null {
  if (!s) return null;
  if (s.trim() === 'QUIC') return '1.3';
  const m = /1\.([23])\s*$/.exec(s.trim());
  return m ? (`1.${m[1]}` as '1.2' | '1.3') : null;
}

/** CDP securityDetails spell TLS 1.3 suites without prefix and hash ("AES_128_GCM") and groups as "X25519" / "P-256". */
const CDP_TLS13_CIPHERS: Record<string, string> = {
  AES_128_GCM: 'TLS_AES_128_GCM_SHA256',
  AES_256_GCM: 'TLS_AES_256_GCM_SHA384',
  CHACHA20_POLY1305: 'TLS_CHACHA20_POLY1305_SHA256',
};
const CDP_GROUPS: Record<string, string> = {
  X25519: 'x25519',
  'P-256': 'secp256r1',
  'P-384': 'secp384r1',
  'P-521': 'secp521r1',
};

/** CDP's cipher name → IANA name where it is unambiguous (TLS 1.3 and QUIC), else as CDP says. */
export function cdpCipherName(cipher: string, tlsVersion: '1.2' | '1.3' | null): string {
  return (tlsVersion === '1.3' && CDP_TLS13_CIPHERS[cipher]) || cipher;
}
export const cdpGroupName = (group: string): string => CDP_GROUPS[group] ?? group;
