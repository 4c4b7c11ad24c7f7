/**
 * The lab's delaying proxies for other packages' tools (exported as `@tlsrum/e2e/lab/delay-proxy`): a
 * SOCKS5 proxy and a plain TCP relay that add a round-trip time and count, from the wire, the round
 * trips each connection's first request waited for (see flight-watcher.ts).
 */
import { flightWatcher, type ConnectionTruth } from './flight-watcher';
import { startSocksProxy, startTcpRelay, type RunningProxy, type SocksProxyOptions } from './socks-proxy';

export type { ConnectionTruth } from './flight-watcher';

export interface DelayProxy {
  port: number;
  /** Connections opened through the proxy, in order, with what they showed. */
  seen: ConnectionTruth[];
  /** Connections opened through the proxy (one per TCP connection the browser made). */
  connections: () => number;
  close: () => Promise<void>;
}

function watched(rttMs: number, resolve: (host: string) => string | null) {
  const seen: ConnectionTruth[] = [];
  const opts: SocksProxyOptions = {
    profile: `rtt-${rttMs}`,
    rttMs,
    sourceAddress: '127.0.0.1',
    resolve,
    log: () => {},
    observe: (host) => {
      const truth: ConnectionTruth = { host, openedAt: Date.now(), roundTripsBeforeData: null };
      seen.push(truth);
      return flightWatcher(truth);
    },
  };
  const wrap = (p: RunningProxy): DelayProxy => ({
    port: p.port,
    seen,
    connections: () => seen.length,
    close: () => p.close(),
  });
  return { opts, wrap };
}

/** SOCKS5 proxy: the CONNECT reply waits one RTT, then every chunk RTT/2 in each direction. */
export async function startDelayProxy(
  rttMs: number,
  resolveHost: (host: string) => string | null,
): Promise<DelayProxy> {
  const { opts, wrap } = watched(rttMs, resolveHost);
  return wrap(await startSocksProxy(opts));
}

/** Plain TCP relay to 127.0.0.1:upstreamPort (TCP handshake not delayed), chunks wait RTT/2 each way. */
export async function startDelayRelay(rttMs: number, host: string, upstreamPort: number): Promise<DelayProxy> {
  const { opts, wrap } = watched(rttMs, () => '127.0.0.1');
  return wrap(await startTcpRelay({ ...opts, host, targetPort: upstreamPort }));
}
