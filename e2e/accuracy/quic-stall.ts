/**
 * Tells, from the UDP relay's log, whether a QUIC handshake stalled on the lab's server rather than on
 * the path. Chromium's post-quantum ClientHello (X25519MLKEM768) does not fit one Initial packet: it
 * sends two ~1250-byte datagrams back to back. Caddy 2.6 (its quic-go) often answers the first with an
 * ACK alone (a ~40-byte datagram) and ignores the second (mostly when it follows within ~1 ms), so (the rest of) its handshake flight leaves
 * only after Chromium's probe timeout re-sends the ClientHello — one or more RTTs later, or tens to
 * hundreds of ms at zero RTT. That is a property of this server, not of the path or the measurement.
 */
import type { ProxyLine } from './truth';

const FULL_DATAGRAM = 1200;

/**
 * true: among its first datagrams the client re-sent a full-size one (only datagrams carrying Initial
 * packets are padded to 1200 bytes: a re-sent ClientHello); null: no sizes logged.
 */
export function quicStalled(proxy: ProxyLine | null): boolean | null {
  const sizes = proxy?.up.sizes;
  if (!sizes) return null;
  // The first two datagrams are the ClientHello itself.
  return sizes.some((b, i) => i >= 2 && b >= FULL_DATAGRAM);
}
