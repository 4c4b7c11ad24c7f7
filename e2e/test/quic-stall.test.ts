/**
 * quicStalled() on relay flows logged by the lab (an h3 run on a quiet machine), and one stall as
 * Caddy 2.6 produced it before the relay's Initial gate: a handshake waits only when the server's flight
 * answered a re-sent ClientHello, not whenever the client sends another Initial.
 */
import { describe, expect, it } from 'vitest';
import { quicStalled } from '../accuracy/quic-stall';
import type { ProxyLine } from '../accuracy/truth';

type Flow = [kind: string, arrivedMs: number][];
const line = (rttMs: number, up: Flow, down: Flow): ProxyLine =>
  ({
    t: 0,
    profile: 'p',
    rttMs,
    transport: 'udp',
    source: '127.0.0.2',
    upstreamLocalPort: 1,
    up: { packets: up.length, kinds: up.map((x) => x[0]), arrived: up.map((x) => x[1]), sizes: up.map(() => 1250) },
    down: {
      packets: down.length,
      kinds: down.map((x) => x[0]),
      arrived: down.map((x) => x[1]),
      sizes: down.map(() => 1250),
    },
  }) as unknown as ProxyLine;

describe('quicStalled', () => {
  it('a handshake answered at once is not stalled', () => {
    // Firefox, metro (20 ms): ClientHello in two datagrams, its ACK of the ServerHello, its Finished.
    const flow = line(
      20,
      [
        ['I', 0.04],
        ['I', 0.18],
        ['IH', 25.42],
        ['H1', 27.15],
        ['1', 27.17],
      ],
      [
        ['I', 13.31],
        ['IH', 14.24],
        ['1', 14.25],
        ['H', 37.95],
      ],
    );
    expect(quicStalled(flow)).toBe(false);
  });

  it("a probe sent before the server's flight could arrive is not a stall (300 ms RTT)", () => {
    // Chromium, satellite: its probe timer (from a 100 ms RTT estimate) re-sends an Initial at ≈ 300 ms,
    // while the server's flight, sent at ≈ 152 ms, is still on its way.
    const chromium = line(
      300,
      [
        ['I', 0.03],
        ['I', 0.12],
        ['I', 300.61],
        ['H1', 303.64],
        ['1', 304.18],
      ],
      [
        ['I', 151.11],
        ['IH', 151.97],
        ['1', 152.05],
        ['I', 352.84],
      ],
    );
    expect(quicStalled(chromium)).toBe(false);
    // Firefox re-sends both datagrams of its ClientHello.
    const firefox = line(
      300,
      [
        ['I', 0.02],
        ['I', 0.09],
        ['I', 301.2],
        ['I', 301.21],
        ['IH', 302.54],
        ['H1', 303.48],
      ],
      [
        ['I', 150.59],
        ['IH', 151.18],
        ['1', 151.28],
      ],
    );
    expect(quicStalled(firefox)).toBe(false);
  });

  it('a resumed handshake whose first flight carries 0-RTT packets is not stalled', () => {
    // Firefox, local: ClientHello in two datagrams, then an Initial coalesced with 0-RTT data.
    const firefox = line(
      0,
      [
        ['I', 0.04],
        ['I', 0.22],
        ['I0', 0.24],
        ['IH1', 2.55],
        ['1', 4.61],
      ],
      [
        ['I', 0.75],
        ['IH1', 1.47],
        ['1', 1.91],
      ],
    );
    expect(quicStalled(firefox)).toBe(false);
    const chromium = line(
      20,
      [
        ['I', 0.03],
        ['I', 0.1],
        ['0', 0.12],
        ['0', 0.13],
        ['I0', 0.2],
        ['H1', 22.4],
      ],
      [
        ['I', 10.8],
        ['IH1', 11.4],
        ['1', 11.5],
      ],
    );
    expect(quicStalled(chromium)).toBe(false);
  });

  it('the two datagrams of one ClientHello spaced by a busy browser are still one ClientHello', () => {
    const flow = line(
      0,
      [
        ['I', 0.03],
        ['I', 5.12],
        ['IH', 7.45],
        ['H1', 8.49],
      ],
      [
        ['I', 5.58],
        ['IH', 6.25],
        ['1', 7.55],
      ],
    );
    expect(quicStalled(flow)).toBe(false);
  });

  it('an Initial a loaded browser sent late, but sooner than any probe, is still its first flight', () => {
    // Chromium, resumed, on a loaded machine: its Initial with 0-RTT data left 22 ms after the ClientHello,
    // and the server's flight (64 ms) answered the first ClientHello.
    const flow = line(
      40,
      [
        ['I', 0.04],
        ['I', 0.24],
        ['I0', 22.61],
        ['IH1', 107.21],
        ['1', 194.75],
      ],
      [
        ['I', 41.1],
        ['IH1', 64.01],
        ['1', 64.02],
        ['1', 64.03],
      ],
    );
    expect(quicStalled(flow)).toBe(false);
    // Chromium, resumed, continent (80 ms), the machine's load three times its cores: the Initial with 0-RTT
    // data left 67 ms after the ClientHello, and the lab's server answered late too (its first datagram at
    // 146 ms, not 80) — still the first flight, not a probe.
    const loaded = line(
      80,
      [
        ['I', 0.02],
        ['I', 0.11],
        ['I0', 67.18],
        ['IH1', 266.22],
        ['H', 496.84],
      ],
      [
        ['I', 146.04],
        ['IH1', 175.24],
        ['1', 175.26],
      ],
    );
    expect(quicStalled(loaded)).toBe(false);
  });

  it('a server flight that left only after a re-sent ClientHello reached it is a stall', () => {
    // metro: the server ACKs the first datagram, drops the second, and sends its flight only once the
    // client's probe (≈ 100 ms later) has reached it — 10 ms of relay delay after the probe.
    const flow = line(
      20,
      [
        ['I', 0.03],
        ['I', 0.12],
        ['I', 110.2],
        ['I', 110.3],
        ['IH', 132.5],
        ['H1', 134.1],
      ],
      [
        ['I', 10.9],
        ['IH', 121.6],
        ['1', 121.7],
      ],
    );
    expect(quicStalled(flow)).toBe(true);
    // The same at zero delay.
    expect(
      quicStalled(
        line(
          0,
          [
            ['I', 0.03],
            ['I', 0.1],
            ['I', 101.0],
            ['IH', 102.3],
          ],
          [
            ['I', 0.6],
            ['IH', 101.5],
          ],
        ),
      ),
    ).toBe(true);
  });

  it('says null when it cannot tell', () => {
    expect(quicStalled(null)).toBeNull();
    // The server never sent a Handshake packet among the first logged datagrams.
    expect(
      quicStalled(
        line(
          20,
          [
            ['I', 0.03],
            ['I', 0.1],
          ],
          [['I', 10.9]],
        ),
      ),
    ).toBeNull();
  });
});
