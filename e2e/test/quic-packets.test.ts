import { describe, expect, it } from 'vitest';
import { carriesInitial, quicPacketKinds } from '../lab/quic-packets';

/** A QUIC v1 long-header packet of `type` (0 Initial, 1 0-RTT, 2 Handshake) with `bodyLength` bytes after its Length field. */
function longPacket(type: 0 | 1 | 2, bodyLength: number, token = Buffer.alloc(0)): Buffer {
  const dcid = Buffer.from('0102030405060708', 'hex');
  const head = [Buffer.from([0xc0 | (type << 4), 0, 0, 0, 1, dcid.length]), dcid, Buffer.from([0])];
  if (type === 0) head.push(Buffer.from([token.length]), token);
  // Two-byte variable-length integer (RFC 9000 §16).
  head.push(Buffer.from([0x40 | (bodyLength >> 8), bodyLength & 0xff]), Buffer.alloc(bodyLength, 0xaa));
  return Buffer.concat(head);
}

describe('quicPacketKinds: what a datagram carries, from plaintext headers', () => {
  it('a lone Initial, padded inside the packet (a ClientHello datagram)', () => {
    const d = longPacket(0, 1200);
    expect(quicPacketKinds(d)).toBe('I');
    expect(carriesInitial(d)).toBe(true);
  });
  it('coalesced packets in order: Initial (with a token), Handshake, then a 1-RTT packet to the end', () => {
    const d = Buffer.concat([
      longPacket(0, 40, Buffer.from('tok')),
      longPacket(2, 60),
      Buffer.from([0x41, 9, 9, 9, 9]),
    ]);
    expect(quicPacketKinds(d)).toBe('IH1');
  });
  it('0-RTT packets, and zero bytes after the last packet are padding, not a packet', () => {
    expect(quicPacketKinds(Buffer.concat([longPacket(0, 30), longPacket(1, 50), Buffer.alloc(20)]))).toBe('I0');
    expect(carriesInitial(Buffer.concat([longPacket(2, 30), Buffer.from([0x40, 1])]))).toBe(false);
  });
  it('a truncated or foreign datagram is marked, never misread', () => {
    expect(quicPacketKinds(longPacket(2, 60).subarray(0, 30))).toBe('?');
    const v2 = longPacket(0, 10);
    v2.writeUInt32BE(0x6b3343cf, 1);
    expect(quicPacketKinds(v2)).toBe('?');
    expect(quicPacketKinds(Buffer.from([0xc0, 0, 0, 0, 0, 0]))).toBe('V');
  });
});
