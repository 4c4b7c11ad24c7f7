/**
 * Tells, from the UDP relay's log, whether a QUIC handshake stalled on the lab's server rather than on
 * the path. Chromium's post-quantum ClientHello (X25519MLKEM768) does not fit one Initial packet: it
 * sends two ~1250-byte datagrams back to back. Caddy 2.6 (its quic-go) often answers the first with an
 * ACK alone (a ~40-byte datagram) and ignores the second (mostly when it follows within ~1 ms), so (the rest of) its handshake flight leaves
 * only after Chromium's probe timeout re-sends the ClientHello — one or more RTTs later, or tens to
 * hundreds of ms at zero RTT. That is a property of this server, not of the path or the measurement;
 * the relay's Initial gate (udp-relay.ts) prevents it, and this tells whether it still happened.
 */
import type { ProxyLine } from './truth';

const FULL_DATAGRAM = 1200;

/**
 * true: the client sent Initial data again after the server had answered (its ACK) but before any
 * Handshake packet came back — a re-sent ClientHello (with packet kinds logged: a datagram with an
 * Initial but no Handshake packet, arriving after the server's first datagram). Relay logs without
 * kinds: among its first datagrams the client re-sent a full-size one (Initial datagrams are padded to
 * 1200 bytes). null: nothing logged.
 */
export function quicStalled(proxy: ProxyLine | null): boolean | null {
  if (!proxy) return null;
  const up = proxy.up;
  if (up.kinds && up.arrived && proxy.down.arrived?.length) {
    const answered = proxy.down.arrived[0]!;
    return up.kinds.some((k, i) => k.includes('I') && !k.includes('H') && up.arrived![i]! > answered);
  }
  const sizes = up.sizes;
  if (!sizes) return null;
  // The first two datagrams are the ClientHello itself.
  return sizes.some((b, i) => i >= 2 && b >= FULL_DATAGRAM);
}
