/**
 * The certificate chain as the server sent it, and the leaf's key and signature.
 *
 * `getPeerCertificate(true)` starts from OpenSSL's peer chain (the certificates sent) but appends the issuer
 * it finds in the client's trust store; the connections that read the chain therefore use an empty trust
 * store (`ca: []`), so only sent certificates appear. The signature algorithm is read from the DER because
 * `X509Certificate#signatureAlgorithm` does not exist on Node 20.
 */
import { X509Certificate } from 'node:crypto';
import type { DetailedPeerCertificate, PeerCertificate, TLSSocket } from 'node:tls';
import type { ProbeLeaf } from '@tlsrum/shared';
import { children, leafKey, readNode, readOid } from '@tlsrum/shared/cert';

export interface ChainFacts {
  chainLength: number;
  chainBytes: number;
  leaf: ProbeLeaf | null;
}

export const NO_CHAIN: ChainFacts = { chainLength: 0, chainBytes: 0, leaf: null };

/** The DER of every certificate the server sent, leaf first. */
export function sentChain(socket: TLSSocket): Buffer[] {
  const out: Buffer[] = [];
  const seen = new Set<PeerCertificate>();
  let c: PeerCertificate | undefined = socket.getPeerCertificate(true);
  while (c && c.raw && !seen.has(c)) {
    seen.add(c);
    out.push(c.raw);
    const next: PeerCertificate | undefined = (c as DetailedPeerCertificate).issuerCertificate;
    // A self-signed certificate is its own issuer: the walk ends there.
    if (!next || next === c || next.raw?.equals(c.raw)) break;
    c = next;
  }
  return out;
}

export function chainFacts(chain: Buffer[], nowMs = Date.now()): ChainFacts {
  if (chain.length === 0) return NO_CHAIN;
  return {
    chainLength: chain.length,
    chainBytes: chain.reduce((n, c) => n + c.length, 0),
    leaf: leafFacts(chain[0]!, nowMs),
  };
}

export function leafFacts(der: Buffer, nowMs = Date.now()): ProbeLeaf {
  const x = new X509Certificate(der);
  const key = leafKey(der);
  return {
    keyType: key.type,
    keyBits: key.bits,
    signatureAlgorithm: signatureAlgorithm(der),
    issuer: commonName(x.issuer),
    daysToExpiry: Math.floor((Date.parse(x.validTo) - nowMs) / 86_400_000),
  };
}

/**
 * Whether the leaf names an OCSP responder in its Authority Information Access: without one there is no
 * certificate status to fetch, so none to staple.
 */
export function namesOcspResponder(der: Buffer): boolean {
  return /(^|\n)OCSP - URI:/.test(new X509Certificate(der).infoAccess ?? '');
}

/** "CN=…" out of Node's one-attribute-per-line distinguished name, else the whole name on one line. */
function commonName(dn: string): string {
  const lines = dn.split('\n');
  const cn = lines.find((l) => l.startsWith('CN='));
  return cn ? cn.slice(3) : lines.join(', ');
}

const SIGNATURE_OIDS: Record<string, string> = {
  '1.2.840.113549.1.1.5': 'sha1WithRSAEncryption',
  '1.2.840.113549.1.1.10': 'rsassaPss',
  '1.2.840.113549.1.1.11': 'sha256WithRSAEncryption',
  '1.2.840.113549.1.1.12': 'sha384WithRSAEncryption',
  '1.2.840.113549.1.1.13': 'sha512WithRSAEncryption',
  '1.2.840.10045.4.1': 'ecdsa-with-SHA1',
  '1.2.840.10045.4.3.2': 'ecdsa-with-SHA256',
  '1.2.840.10045.4.3.3': 'ecdsa-with-SHA384',
  '1.2.840.10045.4.3.4': 'ecdsa-with-SHA512',
  '1.3.101.112': 'ED25519',
  '1.3.101.113': 'ED448',
};

/** Certificate ::= SEQUENCE { tbsCertificate, signatureAlgorithm AlgorithmIdentifier, signatureValue }. */
export function signatureAlgorithm(der: Uint8Array): string {
  const cert = children(der, readNode(der, 0));
  const algId = cert[1];
  if (!algId) throw new Error('certificate: no signatureAlgorithm');
  const oid = readOid(der, children(der, algId)[0]!);
  return SIGNATURE_OIDS[oid] ?? oid;
}
