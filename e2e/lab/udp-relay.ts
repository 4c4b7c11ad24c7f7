/**
 * A delaying UDP relay for QUIC: datagrams from each client address wait RTT/2, go to the target from
 * a socket bound to the profile's loopback address, and the answers wait RTT/2 on the way back.
 * QUIC's handshake round trips then cost the injected RTT. One JSON line per flow on close.
 */
import { createSocket, type Socket } from 'node:dgram';
import { DelayQueue, FIRST_CHUNKS, summarise } from './delay-queue';

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
  upstreamPort: number | null;
  idle: NodeJS.Timeout;
}

// A QUIC connection the browser closed sends nothing more: its flow is logged after this much silence.
const FLOW_IDLE_MS = 2_000;
/**
 * Datagrams sent back to back leave the relay back to back. Chromium's post-quantum ClientHello spans
 * two Initial datagrams sent 0.1–1 ms apart; released with that gap, Caddy 2.6 (quic-go) often ignores
 * the second, and the handshake waits for Chromium's probe timeout — or, when the re-sent pair is
 * ignored again, the visit times out (5–8 of 21 h3 visits at load 8–18, none when a burst leaves in one
 * go as it did when timers had 1 ms resolution). Costs the first datagram of a burst ≤ 1 ms, logged.
 */
const BURST_MS = 1;

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
        up: { packets: f.packetsUp, ...summarise(f.toServer.held), first: f.toServer.first, arrived: f.toServer.arrivedSince(f.t0), sizes: f.sizesUp },
        down: { packets: f.packetsDown, ...summarise(f.toClient.held), first: f.toClient.first, arrived: f.toClient.arrivedSince(f.t0), sizes: f.sizesDown },
      }),
    );
  };
  sock.on('message', (msg, rinfo) => {
    const key = `${rinfo.address}:${rinfo.port}`;
    let f = flows.get(key);
    if (!f) {
      const upstream = createSocket({ type: 'udp4' });
      upstream.bind({ address: opts.sourceAddress, port: 0 }, () => (flow.upstreamPort = upstream.address().port));
      const flow: Flow = {
        started: Date.now(),
        t0: performance.now(),
        upstream,
        toServer: new DelayQueue<Buffer>(half, (b) => upstream.send(b, opts.targetPort, opts.targetAddress), BURST_MS),
        toClient: new DelayQueue<Buffer>(half, (b) => sock.send(b, rinfo.port, rinfo.address), BURST_MS),
        packetsUp: 0,
        packetsDown: 0,
        sizesUp: [],
        sizesDown: [],
        upstreamPort: null,
        idle: setTimeout(() => endFlow(key), FLOW_IDLE_MS),
      };
      upstream.on('message', (b) => {
        flow.packetsDown++;
        if (flow.sizesDown.length < FIRST_CHUNKS) flow.sizesDown.push(b.length);
        flow.toClient.push(b);
      });
      upstream.on('error', () => endFlow(key));
      flows.set(key, flow);
      f = flow;
    }
    f.packetsUp++;
    if (f.sizesUp.length < FIRST_CHUNKS) f.sizesUp.push(msg.length);
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
