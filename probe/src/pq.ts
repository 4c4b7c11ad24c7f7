/**
 * Whether this process's OpenSSL can offer the post-quantum hybrid group at all (OpenSSL ≥ 3.5: Node ≥ 24).
 * Asked of OpenSSL itself rather than inferred from version numbers: a context that names an unknown group
 * fails to build ("Failed to set ECDH curve").
 */
import { createSecureContext } from 'node:tls';

export const PQ_GROUP = 'X25519MLKEM768';

let cached: boolean | undefined;

export function canOfferPq(): boolean {
  if (cached === undefined) {
    try {
      createSecureContext({ ecdhCurve: PQ_GROUP });
      cached = true;
    } catch {
      cached = false;
    }
  }
  return cached;
}

/** `null` when not testable here, else whether the modern connection negotiated the hybrid group. */
export function pqSupported(negotiatedGroup: string | null): boolean | null {
  if (!canOfferPq() || negotiatedGroup === null) return null;
  return negotiatedGroup === PQ_GROUP;
}
