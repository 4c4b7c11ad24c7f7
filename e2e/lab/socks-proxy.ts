/**
 * A SOCKS5 proxy (RFC 1928, CONNECT only, no authentication) that emulates a path's round-trip time
 * without netem: the CONNECT reply waits one RTT (the TCP handshake), then every chunk waits RTT/2 in
 * each direction. Upstream sockets are bound to the profile's own loopback address. Host names are
 * resolved by the proxy (browsers send SOCKS5 domain names): `*.lab.test` → the lab's loopback address.
 * One JSON line per connection goes to the log, with the delays actually applied.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import { atLeastAfter, DelayQueue, summarise } from './delay-queue';
import type { ConnectionObserver } from './flight-watcher';

export interface SocksProxyOptions {
  profile: string;
  rttMs: number;
  sourceAddress: string;
  /** Maps a requested host to the address to connect to, or null to refuse. */
  resolve: (host: string) => string | null;
  log: (line: string) => void;
  /** Sees each connection's chunks as they arrive, before the delay (e.g. to count TLS flights). */
  observe?: (host: string) => ConnectionObserver;
}

export interface RunningProxy {
  server: Server;
  port: number;
  close(): Promise<void>;
}

const REPLY = (code: number) => Buffer.from([5, code, 0, 1, 0, 0, 0, 0, 0, 0]);

export async function startSocksProxy(opts: SocksProxyOptions, port = 0, host = '127.0.0.1'): Promise<RunningProxy> {
  return listen(port, host, (client, sockets) => handle(client, opts, sockets));
}

/** A TCP server that tracks its sockets (both ends of every connection) so close() can end them all. */
async function listen(
  port: number,
  host: string,
  accept: (client: Socket, sockets: Set<Socket>) => void,
): Promise<RunningProxy> {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    accept(client, sockets);
  });
  await new Promise<void>((res, rej) => server.once('error', rej).listen(port, host, () => res()));
  const addr = server.address();
  if (!addr || typeof addr === 'string') throw new Error('delaying proxy: no address');
  return {
    server,
    port: addr.port,
    close: () =>
      new Promise<void>((res) => {
        for (const s of sockets) s.destroy();
        server.close(() => res());
      }),
  };
}

function handle(client: Socket, opts: SocksProxyOptions, sockets: Set<Socket>): void {
  client.setNoDelay(true);
  let buf = Buffer.alloc(0);
  let stage: 'greeting' | 'request' | 'piping' = 'greeting';
  const fail = (code: number, why: string, host = '', port = 0) => {
    opts.log(JSON.stringify({ t: Date.now(), profile: opts.profile, event: 'refused', host, port, why }));
    if (!client.destroyed) client.end(REPLY(code));
  };
  const onData = (chunk: Buffer) => {
    buf = Buffer.concat([buf, chunk]);
    if (stage === 'greeting') {
      if (buf.length < 2) return;
      const n = buf[1]!;
      if (buf[0] !== 5) return void client.destroy();
      if (buf.length < 2 + n) return;
      const methods = buf.subarray(2, 2 + n);
      buf = buf.subarray(2 + n);
      if (!methods.includes(0)) return void client.end(Buffer.from([5, 0xff]));
      client.write(Buffer.from([5, 0]));
      stage = 'request';
    }
    if (stage === 'request') {
      if (buf.length < 5) return;
      const atyp = buf[3]!;
      let host: string;
      let end: number;
      if (atyp === 1) {
        end = 4 + 4;
        if (buf.length < end + 2) return;
        host = [...buf.subarray(4, 8)].join('.');
      } else if (atyp === 3) {
        const len = buf[4]!;
        end = 5 + len;
        if (buf.length < end + 2) return;
        host = buf.subarray(5, end).toString('latin1').toLowerCase();
      } else {
        return fail(8, 'address type not supported');
      }
      const port = buf.readUInt16BE(end);
      const cmd = buf[1];
      const rest = buf.subarray(end + 2);
      buf = Buffer.alloc(0);
      if (cmd !== 1) return fail(7, 'command not supported', host, port);
      stage = 'piping';
      client.off('data', onData);
      client.pause();
      connectUpstream(client, { host, port, early: rest, socks: true }, opts, sockets, fail);
    }
  };
  client.on('data', onData);
  client.on('error', () => client.destroy());
}

/**
 * A plain delaying TCP relay to one upstream port, for a browser connecting without a proxy (Firefox
 * sends no TLS early data through a proxy). The kernel answers the TCP handshake itself, so it is not
 * delayed: entries then show a near-zero TCP phase. Same per-direction delays and log as the proxy.
 */
export async function startTcpRelay(
  opts: SocksProxyOptions & { host: string; targetPort: number },
  port = 0,
  host = '127.0.0.1',
): Promise<RunningProxy> {
  return listen(port, host, (client, sockets) => {
    client.setNoDelay(true);
    client.pause();
    const fail = () => void client.destroy();
    connectUpstream(
      client,
      { host: opts.host, port: opts.targetPort, early: Buffer.alloc(0), socks: false },
      opts,
      sockets,
      fail,
    );
  });
}

function connectUpstream(
  client: Socket,
  /** `socks`: answer the CONNECT request after one RTT (the TCP handshake the browser measures). */
  { host, port, early, socks }: { host: string; port: number; early: Buffer; socks: boolean },
  opts: SocksProxyOptions,
  sockets: Set<Socket>,
  fail: (code: number, why: string, host?: string, port?: number) => void,
): void {
  const target = opts.resolve(host);
  if (!target) return fail(4, 'host not in the lab', host, port);
  const t0 = performance.now();
  const started = Date.now();
  const upstream = connect({ host: target, port, localAddress: opts.sourceAddress });
  sockets.add(upstream);
  upstream.setNoDelay(true);
  const half = opts.rttMs / 2;
  const observer = opts.observe?.(host);
  const toServer = new DelayQueue<Buffer | null>(half, (b) => (b ? upstream.write(b) : upstream.end()));
  const toClient = new DelayQueue<Buffer | null>(half, (b) => (b ? client.write(b) : client.end()));
  let connectHeldMs = 0;
  let bytesUp = 0;
  let bytesDown = 0;
  let logged = false;
  const finish = (reason: string) => {
    if (logged) return;
    logged = true;
    toServer.clear();
    toClient.clear();
    opts.log(
      JSON.stringify({
        t: started,
        profile: opts.profile,
        rttMs: opts.rttMs,
        host,
        port,
        source: opts.sourceAddress,
        upstreamLocalPort: upstreamLocalPort ?? null,
        connectHeldMs: Math.round(connectHeldMs * 100) / 100,
        up: { bytes: bytesUp, ...summarise(toServer.held), first: toServer.first, arrived: toServer.arrivedSince(t0) },
        down: {
          bytes: bytesDown,
          ...summarise(toClient.held),
          first: toClient.first,
          arrived: toClient.arrivedSince(t0),
        },
        durationMs: Math.round(performance.now() - t0),
        end: reason,
      }),
    );
    client.destroy();
    upstream.destroy();
  };
  let upstreamLocalPort: number | undefined;
  upstream.once('connect', () => {
    upstreamLocalPort = upstream.localPort;
    // The TCP handshake is one round trip: the browser learns "connected" one RTT after asking.
    atLeastAfter(t0, socks ? opts.rttMs : 0, () => {
      connectHeldMs = performance.now() - t0;
      if (client.destroyed) return finish('client-gone');
      if (socks) client.write(REPLY(0));
      const up = (b: Buffer) => {
        observer?.fromClient(b);
        bytesUp += b.length;
        toServer.push(b);
      };
      if (early.length) up(early);
      client.on('data', up);
      client.on('end', () => toServer.push(null));
      client.resume();
      upstream.on('data', (b: Buffer) => {
        observer?.fromServer(b);
        bytesDown += b.length;
        toClient.push(b);
      });
      upstream.on('end', () => toClient.push(null));
    });
  });
  upstream.on('error', (e: NodeJS.ErrnoException) => {
    if (!upstreamLocalPort) return fail(5, `upstream: ${e.code ?? e.message}`, host, port);
    finish(`upstream-error ${e.code ?? ''}`);
  });
  client.on('error', () => finish('client-error'));
  // Both ends closed and nothing left to deliver.
  const maybeDone = () => {
    if (client.destroyed || upstream.destroyed || (client.writableEnded && upstream.writableEnded)) {
      if (!toServer.pending && !toClient.pending) finish('closed');
    }
  };
  client.on('close', maybeDone);
  upstream.on('close', () => {
    // Deliver what is still queued towards the client before tearing down.
    const wait = toClient.pending ? half + 5 : 0;
    setTimeout(() => finish('closed'), wait);
  });
  sockets.add(client);
}
