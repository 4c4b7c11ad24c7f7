/**
 * A SOCKS5 proxy that adds a round-trip time, for recording classifier fixtures at a known RTT without
 * netem: the CONNECT reply waits one RTT (the TCP handshake the browser measures as connectStart →
 * secureConnectionStart), then every chunk is delayed by RTT/2 in each direction, so each TLS flight
 * costs what it would on a real path. Names ending in one of `hosts` resolve to 127.0.0.1.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * What the proxy saw of one TLS connection: the ground truth of how many round trips the handshake
 * cost before the first application data. TLS record headers are plaintext (type, version, length):
 * the first client record of type 23 (application_data) is the request — or, in TLS 1.3, the
 * encrypted Finished that travels with it in the same flight. A client *flight* is what the client
 * sends after having received something from the server; the index of the flight that carries the
 * first application-data record is the number of round trips the request waited for the handshake:
 * 0 = early data (0-RTT), 1 = TLS 1.3, resumption or TLS 1.2 False Start, 2 = full TLS 1.2.
 */
export interface ConnectionTruth {
  host: string;
  openedAt: number;
  /** null until the client sent application data. */
  roundTripsBeforeData: number | null;
}

export interface DelayProxy {
  port: number;
  /** Connections opened through the proxy, in order, with what they showed. */
  seen: ConnectionTruth[];
  /** Connections opened through the proxy (one per TCP connection the browser made). */
  connections: () => number;
  close: () => Promise<void>;
}

export async function startDelayProxy(rttMs: number, resolveHost: (host: string) => string | null): Promise<DelayProxy> {
  const sockets = new Set<Socket>();
  let opened = 0;
  const seen: ConnectionTruth[] = [];
  const half = rttMs / 2;
  const server: Server = createServer((client) => {
    // Nagle's algorithm with the peer's delayed ACK stalls small TLS flights by up to 40 ms.
    client.setNoDelay(true);
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    let buf = Buffer.alloc(0);
    let stage: 'greeting' | 'request' | 'relay' = 'greeting';
    const onData = (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      if (stage === 'greeting') {
        if (buf.length < 2 || buf.length < 2 + buf[1]!) return;
        buf = buf.subarray(2 + buf[1]!);
        client.write(Buffer.from([5, 0])); // no authentication
        stage = 'request';
      }
      if (stage === 'request') {
        if (buf.length < 5) return;
        const atyp = buf[3]!;
        let host: string;
        let end: number;
        if (atyp === 1) {
          if (buf.length < 10) return;
          host = [...buf.subarray(4, 8)].join('.');
          end = 8;
        } else if (atyp === 3) {
          const len = buf[4]!;
          if (buf.length < 5 + len + 2) return;
          host = buf.subarray(5, 5 + len).toString();
          end = 5 + len;
        } else {
          client.end(Buffer.from([5, 8, 0, 1, 0, 0, 0, 0, 0, 0]));
          return;
        }
        const port = buf.readUInt16BE(end);
        const rest = buf.subarray(end + 2);
        stage = 'relay';
        client.off('data', onData);
        client.pause();
        const address = resolveHost(host);
        if (!address) {
          client.end(Buffer.from([5, 4, 0, 1, 0, 0, 0, 0, 0, 0]));
          return;
        }
        const upstream = connect(port, address);
        upstream.setNoDelay(true);
        sockets.add(upstream);
        upstream.on('close', () => sockets.delete(upstream));
        upstream.on('error', () => client.destroy());
        client.on('close', () => upstream.destroy());
        upstream.on('close', () => setTimeout(() => client.destroy(), half));
        const truth: ConnectionTruth = { host, openedAt: Date.now(), roundTripsBeforeData: null };
        seen.push(truth);
        const watch = flightWatcher(truth);
        upstream.once('connect', () => {
          opened++;
          // The TCP handshake's round trip.
          setTimeout(() => {
            client.write(Buffer.from([5, 0, 0, 1, 0, 0, 0, 0, 0, 0]));
            const relay = (from: Socket, to: Socket) =>
              from.on('data', (d: Buffer) => setTimeout(() => to.writable && to.write(d), half));
            if (rest.length) {
              watch.fromClient(rest);
              setTimeout(() => upstream.write(rest), half);
            }
            client.on('data', (d: Buffer) => watch.fromClient(d));
            upstream.on('data', () => watch.fromServer());
            relay(client, upstream);
            relay(upstream, client);
            client.resume();
          }, rttMs);
        });
      }
    };
    client.on('data', onData);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    port: (server.address() as { port: number }).port,
    seen,
    connections: () => opened,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Follows TLS records client → server and counts client flights until the first application data. */
function flightWatcher(truth: ConnectionTruth) {
  let flight = 0;
  let serverSpokeSinceLastClientData = false;
  let clientSentInFlight = false;
  let pending = Buffer.alloc(0);
  let skip = 0; // bytes of the current record body still to skip
  return {
    fromServer() {
      serverSpokeSinceLastClientData = true;
    },
    fromClient(chunk: Buffer) {
      if (truth.roundTripsBeforeData !== null) return;
      if (serverSpokeSinceLastClientData && clientSentInFlight) {
        flight++;
        clientSentInFlight = false;
      }
      serverSpokeSinceLastClientData = false;
      clientSentInFlight = true;
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        if (skip > 0) {
          const n = Math.min(skip, pending.length);
          pending = pending.subarray(n);
          skip -= n;
          if (skip > 0) return;
        }
        if (pending.length < 5) return;
        const type = pending[0]!;
        const length = pending.readUInt16BE(3);
        if (type === 23) {
          truth.roundTripsBeforeData = flight;
          return;
        }
        pending = pending.subarray(5);
        skip = length;
      }
    },
  };
}

/**
 * A plain TCP relay to one upstream port with the same per-direction delay and wire truth, for a
 * browser connecting without a proxy (Firefox sends no TLS early data through a proxy). The TCP
 * handshake itself is not delayed (the kernel answers it): entries then show a near-zero TCP phase.
 */
export async function startDelayRelay(rttMs: number, host: string, upstreamPort: number): Promise<DelayProxy> {
  const sockets = new Set<Socket>();
  const seen: ConnectionTruth[] = [];
  const half = rttMs / 2;
  const server: Server = createServer((client) => {
    client.setNoDelay(true);
    const upstream = connect(upstreamPort, '127.0.0.1');
    upstream.setNoDelay(true);
    const truth: ConnectionTruth = { host, openedAt: Date.now(), roundTripsBeforeData: null };
    seen.push(truth);
    const watch = flightWatcher(truth);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => s.destroy());
    }
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => setTimeout(() => client.destroy(), half));
    client.on('data', (d: Buffer) => {
      watch.fromClient(d);
      setTimeout(() => upstream.writable && upstream.write(d), half);
    });
    upstream.on('data', (d: Buffer) => {
      watch.fromServer();
      setTimeout(() => client.writable && client.write(d), half);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    port: (server.address() as { port: number }).port,
    seen,
    connections: () => seen.length,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
