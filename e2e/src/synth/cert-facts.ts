/**
 * The certificate facts of a record from the chain's DER (base64, leaf first): the leaf's key type and
 * size and the chain as the server sent it (a built chain's self-issued root left out), by the same
 * shared code the extension uses. Malformed DER gives no facts rather than a guess.
 */
import { chainAsSent, leafKey } from '@tlsrum/shared/cert';
import type { SecurityInfo } from '@tlsrum/shared/classify';

export function certFacts(ders: readonly string[] | null): Pick<SecurityInfo, 'certKeyType' | 'certKeyBits' | 'certChainLength' | 'certChainBytes'> {
  if (!ders?.length) return {};
  try {
    const bytes = ders.map((d) => new Uint8Array(Buffer.from(d, 'base64')));
    const key = leafKey(bytes[0]!);
    const chain = chainAsSent(bytes);
    return { certKeyType: key.type, certKeyBits: key.bits, certChainLength: chain.length, certChainBytes: chain.bytes };
  } catch {
    return {};
  }
}
