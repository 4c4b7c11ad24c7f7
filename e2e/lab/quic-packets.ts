/**
 * What a QUIC datagram carries, from its plaintext headers only: the packet types of the coalesced
 * packets in it (RFC 9000 §17: long-header packets state their length, a short-header packet runs to
 * the end of the datagram). Enough to tell a client's ClientHello (Initial), early data (0-RTT), its
 * Finished (Handshake) and its first 1-RTT packet apart in the relay's log. QUIC v1 only.
 */

/** `I` Initial, `0` 0-RTT, `H` Handshake, `R` Retry, `1` 1-RTT (short header), `V` version negotiation, `?` unparsable. */
export type QuicPacketKind = 'I' | '0' | 'H' | 'R' | '1' | 'V' | '?';

const LONG_TYPES: QuicPacketKind[] = ['I', '0', 'H', 'R'];
const QUIC_V1 = 1;

/** A variable-length integer (RFC 9000 §16) at `off`: its value and its length, or null past the end. */
function varint(b: Buffer, off: number): { value: number; length: number } | null {
  if (off >= b.length) return null;
  const length = 1 << (b[off]! >> 6);
  if (off + length > b.length) return null;
  let value = b[off]! & 0x3f;
  for (let i = 1; i < length; i++) value = value * 256 + b[off + i]!;
  return { value, length };
}

/** The kinds of the packets coalesced in one datagram, in order (e.g. `IH1`: Initial, Handshake, 1-RTT). */
export function quicPacketKinds(b: Buffer): string {
  let kinds = '';
  let off = 0;
  while (off < b.length) {
    const first = b[off]!;
    // Bytes after the last packet with the fixed bit (0x40) clear are padding, not a packet.
    if ((first & 0x40) === 0) return kinds;
    if ((first & 0x80) === 0) return kinds + '1';
    if (off + 6 > b.length) return kinds + '?';
    const version = b.readUInt32BE(off + 1);
    if (version === 0) return kinds + 'V';
    if (version !== QUIC_V1) return kinds + '?';
    const kind = LONG_TYPES[(first & 0x30) >> 4]!;
    if (kind === 'R') return kinds + 'R';
    let p = off + 5;
    p += 1 + b[p]!; // destination connection ID
    if (p >= b.length) return kinds + '?';
    p += 1 + b[p]!; // source connection ID
    if (kind === 'I') {
      const token = varint(b, p);
      if (!token) return kinds + '?';
      p += token.length + token.value;
    }
    const length = varint(b, p);
    if (!length) return kinds + '?';
    p += length.length + length.value;
    if (p > b.length) return kinds + '?';
    kinds += kind;
    off = p;
  }
  return kinds;
}

export const carriesInitial = (b: Buffer) => quicPacketKinds(b).includes('I');
