/**
 * The certificate facts of a record from the chain's DER (base64, leaf first): the leaf's key type and
 * size and the chain as the server sent it, by the same shared code the extension uses. `sent`: the
 * chain as received (Chromium's NetLog), counted whole — a server may send its root too; `built`: the
 * chain the browser built (Firefox), whose self-issued root is left out. Malformed DER gives no facts.
 */
import { chainAsSent, leafKey } from '@tlsrum/shared/cert';
import type { SecurityInfo } from '@tlsrum/shared/classify';

export function certFacts(
  ders: readonly string[] | null,
  chain: 'sent' | 'built',
): Pick<SecurityInfo, 'certKeyType' | 'certKeyBits' | 'certChainLength' | 'certChainBytes'> {
  if (!ders?.length) return {};
  try {
    const bytes = ders.map((d) => new Uint8Array(Buffer.from(d, 'base64')));
    const key = leafKey(bytes[0]!);
    const sent =
      chain === 'built' ? chainAsSent(bytes) : { length: bytes.length, bytes: bytes.reduce((n, d) => n + d.length, 0) };
    return { certKeyType: key.type, certKeyBits: key.bits, certChainLength: sent.length, certChainBytes: sent.bytes };
  } catch {
    return {};
  }
}
