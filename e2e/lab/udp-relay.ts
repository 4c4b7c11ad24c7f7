/**
 * A delaying UDP relay for QUIC: datagrams from each client address wait RTT/2, go to the target from
 * a socket bound to the profile's loopback address, and the answers wait RTT/2 on the way back.
 * QUIC's handshake round trips then cost the injected RTT. One JSON line per flow on close.
 */
import { createSocket, type Socket } from 'node:dgram';
import { DelayQueue, FIRST_CHUNKS, summarise } from './delay-queue';
import { carriesInitial, quicPacketKinds } from './quic-packets';

export interface UdpRelayOptions {
  profile: string;
  rttMs: number;
  sourceAddress: string;
  listenAddress: string;
  listenPort: number;
  targetAddress: string;
  targetPort: number;
  log: (line: string) => void;
}

interface Flow {
  started: number;
  /** performance.now() at the flow's first datagram. */
  t0: number;
  upstream: Socket;
  toServer: DelayQueue<Buffer>;
  toClient: DelayQueue<Buffer>;
  packetsUp: number;
  packetsDown: number;
  /** Sizes of the first datagrams each way: an ACK-only answer is small, a handshake flight is not. */
  sizesUp: number[];
  sizesDown: number[];
  /** Packet kinds of the first datagrams each way (quic-packets.ts), e.g. `I`, `IH`, `H1`, `1`. */
  kindsUp: string[];
  kindsDown: string[];
  gate: InitialGate;
  upstreamPort: number | null;
  idle: NodeJS.Timeout;
}

// A QUIC connection the browser closed sends nothing more: its flow is logged after this much silence.
const FLOW_IDLE_MS = 2_000;
/** Datagrams sent back to back leave the relay back to back (the server's flight stays one burst). */
const BURST_MS = 1;
/** The gate below opens after this long even if the server never answered (its first datagram lost). */
const GATE_MAX_MS = 100;

/**
 * Works around a bug of the lab's QUIC server. A ClientHello offering a post-quantum key share
 * (X25519MLKEM768: Chromium 156, Firefox 153) does not fit one Initial packet: the client sends two
 * datagrams back to back. Caddy 2.6's quic-go (0.31) queues every Initial for a connection ID it does
 * not know yet with its server loop; the first creates the connection, and a second that was queued
 * before that (i.e. arrived within the server's turnaround, ~1–5 ms) is dropped ("Not adding
 * connection ID … as it already exists": quic-go issue #3760, fixed in later releases). The handshake
 * then waits for the client's probe timeout to re-send it — one or more RTTs. So once a flow's first
 * Initial has gone to the server, every later datagram waits until the server has answered anything
 * (its ACK of that Initial: the connection exists by then) or GATE_MAX_MS passed. What it costs the
 * handshake — the server's turnaround for the first datagram — is logged per flow (`gateHeldMs`) and
 * lies inside the span the relay sees on the wire, against which the browser's TLS phase is scored.
 */
class InitialGate {
  private sentInitial = false;
  private open = false;
  private readonly waiting: Buffer[] = [];
  private closedAt = 0;
  private timer: NodeJS.Timeout | null = null;
  /** How long datagrams waited behind the gate (ms, null: the gate never closed). */
  heldMs: number | null = null;

  constructor(private readonly send: (b: Buffer) => void) {}

  up(b: Buffer): void {
    if (this.open) return this.send(b);
    if (!this.sentInitial) {
      if (carriesInitial(b)) this.sentInitial = true;
      return this.send(b);
    }
    if (!this.waiting.length) {
      this.closedAt = performance.now();
      this.timer = setTimeout(() => this.serverAnswered(), GATE_MAX_MS);
    }
    this.waiting.push(b);
  }

  serverAnswered(): void {
    if (this.open) return;
    this.open = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.waiting.length) this.heldMs = Math.round((performance.now() - this.closedAt) * 100) / 100;
    for (const b of this.waiting.splice(0)) this.send(b);
  }

  clear(): void {
    if (this.timer) clearTimeout(this.timer);
    this.waiting.length = 0;
  }
}

export async function startUdpRelay(opts: UdpRelayOptions): Promise<{ port: number; close(): Promise<void> }> {
  const sock = createSocket({ type: 'udp4' });
  const flows = new Map<string, Flow>();
  const half = opts.rttMs / 2;
  const endFlow = (key: string) => {
    const f = flows.get(key);
    if (!f) return;
    flows.delete(key);
    clearTimeout(f.idle);
    f.toServer.clear();
    f.toClient.clear();
    f.gate.clear();
    f.upstream.close();
    opts.log(
      JSON.stringify({
        t: f.started,
        profile: opts.profile,
        rttMs: opts.rttMs,
        transport: 'udp',
        client: key,
        target: `${opts.targetAddress}:${opts.targetPort}`,
        source: opts.sourceAddress,
        // The server sees this port: joins the flow to Caddy's access log (request.remote_port).
        upstreamLocalPort: f.upstreamPort,
        gateHeldMs: f.gate.heldMs,
        up: {
          packets: f.packetsUp,
          ...summarise(f.toServer.held),
          first: f.toServer.first,
          arrived: f.toServer.arrivedSince(f.t0),
          sizes: f.sizesUp,
          kinds: f.kindsUp,
        },
        down: {
          packets: f.packetsDown,
          ...summarise(f.toClient.held),
          first: f.toClient.first,
          arrived: f.toClient.arrivedSince(f.t0),
          sizes: f.sizesDown,
          kinds: f.kindsDown,
        },
      }),
    );
  };
  sock.on('message', (msg, rinfo) => {
    const key = `${rinfo.address}:${rinfo.port}`;
    let f = flows.get(key);
    if (!f) {
      const upstream = createSocket({ type: 'udp4' });
      upstream.bind({ address: opts.sourceAddress, port: 0 }, () => (flow.upstreamPort = upstream.address().port));
      const gate = new InitialGate((b) => upstream.send(b, opts.targetPort, opts.targetAddress));
      const flow: Flow = {
        started: Date.now(),
        t0: performance.now(),
        upstream,
        toServer: new DelayQueue<Buffer>(half, (b) => gate.up(b), BURST_MS),
        toClient: new DelayQueue<Buffer>(half, (b) => sock.send(b, rinfo.port, rinfo.address), BURST_MS),
        packetsUp: 0,
        packetsDown: 0,
        sizesUp: [],
        sizesDown: [],
        kindsUp: [],
        kindsDown: [],
        gate,
        upstreamPort: null,
        idle: setTimeout(() => endFlow(key), FLOW_IDLE_MS),
      };
      upstream.on('message', (b) => {
        flow.packetsDown++;
        gate.serverAnswered();
        if (flow.sizesDown.length < FIRST_CHUNKS) {
          flow.sizesDown.push(b.length);
          flow.kindsDown.push(quicPacketKinds(b));
        }
        flow.toClient.push(b);
      });
      upstream.on('error', () => endFlow(key));
      flows.set(key, flow);
      f = flow;
    }
    f.packetsUp++;
    if (f.sizesUp.length < FIRST_CHUNKS) {
      f.sizesUp.push(msg.length);
      f.kindsUp.push(quicPacketKinds(msg));
    }
    f.idle.refresh();
    f.toServer.push(msg);
  });
  await new Promise<void>((res, rej) => {
    sock.once('error', rej);
    sock.bind({ address: opts.listenAddress, port: opts.listenPort }, () => res());
  });
  return {
    port: sock.address().port,
    close: async () => {
      for (const k of [...flows.keys()]) endFlow(k);
      await new Promise<void>((res) => sock.close(() => res()));
    },
  };
}
