/**
 * The facts the crypto lens keeps about a server's certificates, read from their DER: the leaf's public-key
 * algorithm and size (its SubjectPublicKeyInfo), and the chain the server sent (count and bytes).
 * Pure, no Node APIs: the Firefox extension runs it in its background script on `rawDER`, the probe and the
 * synthetic runner on the certificates they see. Tested against Node's X509Certificate on real certificates.
 */
import type { CertKeyType } from '../constants';
import { children, readNode, readOid, type DerNode } from './der';

export interface CertKey {
  type: CertKeyType;
  /** RSA modulus bits, EC curve bits (P-256 → 256), 256 for Ed25519, 448 for Ed448; null when unknown. */
  bits: number | null;
}

const RSA_OIDS = new Set(['1.2.840.113549.1.1.1', '1.2.840.113549.1.1.10']); // rsaEncryption, RSASSA-PSS
const EC_PUBLIC_KEY = '1.2.840.10045.2.1';
const CURVE_BITS: Record<string, number> = {
  '1.2.840.10045.3.1.7': 256, // P-256 (prime256v1)
  '1.3.132.0.34': 384, // P-384
  '1.3.132.0.35': 521, // P-521
  '1.3.36.3.3.2.8.1.1.7': 256, // brainpoolP256r1
  '1.3.36.3.3.2.8.1.1.11': 384, // brainpoolP384r1
  '1.3.36.3.3.2.8.1.1.13': 512, // brainpoolP512r1
};
const ED25519 = '1.3.101.112';
const ED448 = '1.3.101.113';

/** Certificate ::= SEQUENCE { tbsCertificate SEQUENCE { [0] version?, serial, signature, issuer, validity, subject, spki, … }, … } */
function tbsFields(der: Uint8Array): DerNode[] {
  const cert = children(der, readNode(der, 0));
  const tbs = cert[0];
  if (!tbs || tbs.tag !== 0x30) throw new Error('certificate: no tbsCertificate');
  const fields = children(der, tbs);
  // The explicit [0] version is absent in v1 certificates.
  return fields[0]?.tag === 0xa0 ? fields.slice(1) : fields;
}

/** Bits of an unsigned big-endian integer's contents (leading zero octets and bits not counted). */
function uintBits(buf: Uint8Array, node: DerNode): number {
  let i = node.start;
  while (i < node.end && buf[i] === 0) i++;
  if (i === node.end) return 0;
  return (node.end - i - 1) * 8 + (32 - Math.clz32(buf[i]!));
}

/** The leaf's public key: algorithm and size, from its SubjectPublicKeyInfo. Throws on malformed DER. */
export function leafKey(der: Uint8Array): CertKey {
  const spki = tbsFields(der)[5];
  if (!spki || spki.tag !== 0x30) throw new Error('certificate: no subjectPublicKeyInfo');
  const [algId, key] = children(der, spki);
  if (!algId || !key || key.tag !== 0x03) throw new Error('certificate: malformed subjectPublicKeyInfo');
  const [oidNode, params] = children(der, algId);
  const oid = readOid(der, oidNode!);
  // BIT STRING contents: one octet of unused bits, then the key.
  const keyBytes: DerNode = { tag: key.tag, start: key.start + 1, end: key.end };
  if (RSA_OIDS.has(oid)) {
    const rsaKey = readNode(der, keyBytes.start);
    const modulus = children(der, rsaKey)[0];
    if (!modulus || modulus.tag !== 0x02) throw new Error('certificate: malformed RSA key');
    return { type: 'rsa', bits: uintBits(der, modulus) };
  }
  if (oid === EC_PUBLIC_KEY) {
    const curve = params?.tag === 0x06 ? readOid(der, params) : '';
    // An unnamed curve: an uncompressed point is 04 ‖ x ‖ y, each coordinate the field's size.
    const fromPoint = der[keyBytes.start] === 0x04 ? ((keyBytes.end - keyBytes.start - 1) / 2) * 8 : null;
    return { type: 'ecdsa', bits: CURVE_BITS[curve] ?? fromPoint };
  }
  if (oid === ED25519) return { type: 'ed25519', bits: 256 };
  if (oid === ED448) return { type: 'other', bits: 448 };
  return { type: 'other', bits: null };
}

/** True when a certificate's issuer and subject names are the same octets: a self-signed (root) certificate. */
export function isSelfIssued(der: Uint8Array): boolean {
  const f = tbsFields(der);
  const issuer = f[2];
  const subject = f[4];
  if (!issuer || !subject) throw new Error('certificate: no issuer or subject');
  const a = der.subarray(issuer.start, issuer.end);
  const b = der.subarray(subject.start, subject.end);
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

export interface SentChain {
  /** Certificates the server sent. */
  length: number;
  /** Their DER bytes, summed. */
  bytes: number;
}

/**
 * The chain the server sent, from a chain as a client reports it (leaf first). Firefox reports the chain it
 * built, ending at the trust anchor, which servers rarely send and never need to: a last certificate that
 * is self-issued is dropped — unless it is the only one (a self-signed leaf is sent). Node's and NetLog's
 * chains are already the sent ones and have no root at the end, so the rule leaves them as they are.
 */
export function chainAsSent(ders: readonly Uint8Array[]): SentChain {
  const sent = ders.length > 1 && isSelfIssued(ders[ders.length - 1]!) ? ders.slice(0, -1) : ders;
  return { length: sent.length, bytes: sent.reduce((n, d) => n + d.length, 0) };
}
