/**
 * The crypto facts a site's TLS probe gives a record that carries none of its own (a Chromium record of a
 * registered site: Chromium tells extensions nothing about TLS). One mapping, used by the collector at
 * ingest (cryptoSource 'probe') and by anything else that reads a probe as record fields.
 *
 * The key exchange group is what a current browser would get: the hybrid X25519MLKEM768 where the probe
 * negotiated it, the probe's own group where the probe offered the hybrid and the server declined, and
 * nothing where the probe could not offer it (OpenSSL < 3.5): the server might accept it, and Chromium
 * offers it. Everything else is the server's configuration as the probe saw it.
 */
import type { ProbeResult } from './probe';
import { securityFields } from './classify/record-fields';
import type { HandshakeRecord } from './schema';

export type ProbeCryptoFacts = Partial<
  Pick<
    HandshakeRecord,
    'group' | 'cipher' | 'certKeyType' | 'certKeyBits' | 'certChainLength' | 'certChainBytes' | 'ocspStapled'
  >
>;

/** The record fields a probe result supports; null when the probe did not reach the server's certificate. */
export function cryptoFactsFromProbe(p: ProbeResult): ProbeCryptoFacts | null {
  const leaf = p.cert.leaf;
  if (!leaf) return null;
  const group = p.pq.supported === true ? 'X25519MLKEM768' : p.pq.supported === false ? p.tls.negotiated.group : null;
  // The same bounds as a client's report: a value the schema would refuse is left out.
  return securityFields({
    evidence: 'observed',
    ...(group ? { group } : {}),
    ...(p.tls.negotiated.cipher ? { cipher: p.tls.negotiated.cipher } : {}),
    certKeyType: leaf.keyType,
    ...(leaf.keyBits !== null ? { certKeyBits: leaf.keyBits } : {}),
    certChainLength: p.cert.chainLength,
    certChainBytes: p.cert.chainBytes,
    // A certificate naming no OCSP service has no status to staple: "not stapled" is no fact about it.
    ...(p.ocsp.stapled === true || (p.ocsp.stapled === false && p.ocsp.responder !== false)
      ? { ocspStapled: p.ocsp.stapled }
      : {}),
  });
}
