/**
 * What a client-side TLS session (`socket.getSession()` / the 'session' event: OpenSSL's i2d_SSL_SESSION)
 * says about the server's ticket. Node exposes the ticket bytes (`getTLSTicket()`) but not the lifetime hint
 * or the early-data allowance of the NewSessionTicket message; OpenSSL stores both in the session's ASN.1
 * (ssl/ssl_asn1.c, SSL_SESSION_ASN1):
 *   [9]  EXPLICIT tlsext_tick_lifetime_hint  (ZUINT64: omitted when 0)
 *   [10] EXPLICIT tlsext_tick                 (the ticket itself: present only for ticket sessions)
 *   [15] EXPLICIT max_early_data              (ZUINT32: omitted when 0, i.e. no early_data extension)
 * The structure has been stable since OpenSSL 1.1.1 and is the same in 3.0 (Node 20) and 3.5 (Node 24).
 * Node 24 prefixes the DER with its own header ("\0nodejs:tls:session:1\0", the server name): the session is
 * the SEQUENCE that ends exactly where the buffer ends.
 */
import { children, readNode, readUint, type DerNode } from '@tlsrum/shared/cert';

export interface SessionFacts {
  /** The session carries a ticket (stateless resumption) rather than only a session id. */
  hasTicket: boolean;
  /** The ticket's lifetime hint in seconds; null without a ticket. */
  ticketLifetimeS: number | null;
  /** max_early_data from the ticket's early_data extension (0 = early data not allowed). */
  maxEarlyData: number;
}

const ctx = (n: number) => 0xa0 + n;

function sessionSequence(buf: Uint8Array): DerNode {
  for (let at = 0; at < Math.min(buf.length, 1024); at++) {
    if (buf[at] !== 0x30) continue;
    try {
      const node = readNode(buf, at);
      if (node.end === buf.length) return node;
    } catch {
      // not a well-formed element here: keep looking
    }
  }
  throw new Error('session: no SSL_SESSION SEQUENCE found');
}

export function sessionFacts(der: Uint8Array): SessionFacts {
  const top = sessionSequence(der);
  const fields = new Map<number, DerNode>();
  for (const c of children(der, top)) fields.set(c.tag, c);
  const explicitUint = (n: number): number | null => {
    const f = fields.get(ctx(n));
    return f ? readUint(der, readNode(der, f.start)) : null;
  };
  const hasTicket = fields.has(ctx(10));
  return {
    hasTicket,
    ticketLifetimeS: hasTicket ? (explicitUint(9) ?? 0) : null,
    maxEarlyData: explicitUint(15) ?? 0,
  };
}
