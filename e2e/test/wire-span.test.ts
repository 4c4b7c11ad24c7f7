/**
 * wireSpan(): the handshake's round trips as the delaying proxy saw them pass, from its per-chunk
 * arrival log (ms after the connection began), here as logged for real lab connections at 20 ms RTT.
 */
import { describe, expect, it } from 'vitest';
import { quicWireSpan, wireSpan } from '../accuracy/score';
import type { ProxyLine } from '../accuracy/truth';

const line = (up: number[], down: number[]): ProxyLine => ({
  t: 0,
  profile: 'metro',
  rttMs: 20,
  source: '127.0.0.3',
  upstreamLocalPort: 40000,
  up: { n: up.length, mean: 10, min: 10, max: 10, arrived: up },
  down: { n: down.length, mean: 10, min: 10, max: 10, arrived: down },
});

describe('wireSpan', () => {
  it('TLS 1.3, one round trip: ClientHello to the client Finished, however many chunks each flight has', () => {
    // ClientHello 22 | server flight 33 (4 chunks) | Finished + request 44, 46 | response 56 …
    const p = line([22, 44, 46, 66, 84], [33, 33.2, 33.3, 33.5, 56, 57, 57]);
    expect(wireSpan(p, 1)).toBe(22);
  });

  it('TLS 1.2 without False Start, two round trips: ClientHello to the request after the server Finished', () => {
    const p = line([21, 44, 74, 121], [32, 56, 84, 163]);
    expect(wireSpan(p, 2)).toBe(53);
    expect(wireSpan(p, 1)).toBe(23);
  });

  it('no span when the log does not hold the client answer to the k-th flight, or holds nothing', () => {
    expect(wireSpan(line([22], [33]), 1)).toBeNull();
    expect(wireSpan(line([22, 44], [33]), 2)).toBeNull();
    expect(wireSpan(null, 1)).toBeNull();
    expect(wireSpan(line([], []), 1)).toBeNull();
  });
});

describe('quicWireSpan', () => {
  const quic = (arrived: number[], kinds: string[]): ProxyLine => ({
    ...line(arrived, []),
    transport: 'udp',
    up: { n: arrived.length, mean: 40, min: 40, max: 40, arrived, kinds },
  });
  it("Chromium at 80 ms (as logged): the first Initial to the datagram with the client's Finished and first 1-RTT packet", () => {
    expect(quicWireSpan(quic([0.63, 0.97, 87.39, 87.52, 88.29], ['I', 'I', 'IH', 'H1', '1']))).toBe(86.89);
  });
  it("Firefox acknowledges the server's Handshake packets before it has verified the certificate: that is not the end", () => {
    expect(quicWireSpan(quic([0.02, 0.42, 87.1, 116.46], ['I', 'I', 'IH', 'H1']))).toBe(116.44);
  });
  it('no 1-RTT datagram among those logged, or no kinds at all: no span', () => {
    expect(quicWireSpan(quic([0, 0.2, 90], ['I', 'I', 'IH']))).toBeNull();
    expect(quicWireSpan(line([0, 40], [20]))).toBeNull();
  });
});
