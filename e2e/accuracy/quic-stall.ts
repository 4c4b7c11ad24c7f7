/**
 * Tells, from the UDP relay's log, whether a QUIC handshake stalled on the lab's server rather than on
 * the path. Chromium's post-quantum ClientHello (X25519MLKEM768) does not fit one Initial packet: it
 * sends two ~1250-byte datagrams back to back. Caddy 2.6 (its quic-go) can answer the first with an
 * ACK alone (a ~40-byte datagram) and drop the second, so its handshake flight leaves only after the
 * client's probe timeout re-sends the ClientHello — one or more RTTs later, or tens to hundreds of ms at
 * zero RTT. That is a property of this server, not of the path or the measurement; the relay's Initial
 * gate (udp-relay.ts) prevents it, and this tells whether it still happened.
 *
 * Not every later Initial is such a re-send. A client also sends Initial datagrams to acknowledge the
 * server's Initial (its ServerHello), and on long paths its probe timer fires before any answer could
 * have come back (Chromium and Firefox start from a 100 ms RTT estimate: at 300 ms RTT both re-send the
 * ClientHello at ≈ 300 ms, while the server's flight is already on its way). Neither delays the
 * handshake. What does is causal: the server's handshake flight left only after a re-sent Initial had
 * reached it.
 */
import type { ProxyLine } from './truth';

const FULL_DATAGRAM = 1200;
/**
 * Datagrams of one ClientHello leave back to back (a busy browser has spaced them by 5 ms in the lab);
 * a re-send comes a probe timeout later, never under ≈ 100 ms in Chromium and Firefox.
 */
const CLIENT_HELLO_GAP_MS = 20;
/**
 * A re-sent ClientHello is a probe: Chromium and Firefox send none sooner than ≈ 100 ms after the first
 * (they start from a 100 ms RTT estimate). An Initial the client sent earlier than this, however late a busy
 * browser sent it, belongs to its first flight — for example a resumed handshake's 0-RTT packets coalesced
 * with an Initial 22 ms, and on a machine loaded well past its cores 67 ms, after the ClientHello.
 */
const EARLIEST_PROBE_MS = 90;

/**
 * true: the server's first datagram carrying a Handshake packet left only after a client datagram with
 * an Initial packet (and no Handshake packet) sent after the ClientHello had reached it — the server
 * answered a re-sent ClientHello. Times: `arrived` is when a datagram reached the relay, next to the
 * browser; each way the relay then holds it RTT/2, so a client datagram reaches the server RTT/2 after
 * its `up.arrived`, and a server datagram left the server (turnaround aside) just before its
 * `down.arrived`. false: the server's flight answered the first ClientHello. null: nothing logged.
 * Relay logs without packet kinds: among its first datagrams the client sent a full-size one after the
 * ClientHello's two (Initial datagrams are padded to 1200 bytes) — an upper bound.
 */
export function quicStalled(proxy: ProxyLine | null): boolean | null {
  if (!proxy) return null;
  const { up, down } = proxy;
  if (up.kinds && up.arrived && down.kinds && down.arrived) {
    const flight = down.kinds.findIndex((k) => k.includes('H'));
    // No Handshake packet among the first logged: the flight never left (a failed handshake).
    if (flight < 0 || down.arrived[flight] === undefined) return null;
    const flightLeft = down.arrived[flight]!;
    const half = proxy.rttMs / 2;
    // The client's first flight: its ClientHello's datagrams and, resuming, its 0-RTT packets (alone or
    // with an Initial), back to back — and nothing of the Handshake space, which needs the server's flight.
    let clientHello = 1;
    while (
      clientHello < up.kinds.length &&
      !up.kinds[clientHello]!.includes('H') &&
      (up.arrived[clientHello]! - up.arrived[clientHello - 1]! < CLIENT_HELLO_GAP_MS ||
        up.arrived[clientHello]! - up.arrived[0]! < EARLIEST_PROBE_MS)
    )
      clientHello++;
    for (let i = clientHello; i < up.kinds.length; i++) {
      const k = up.kinds[i]!;
      if (!k.includes('I') || k.includes('H')) continue;
      if (up.arrived[i]! + half <= flightLeft) return true;
    }
    return false;
  }
  const sizes = up.sizes;
  if (!sizes) return null;
  return sizes.some((b, i) => i >= 2 && b >= FULL_DATAGRAM);
}
