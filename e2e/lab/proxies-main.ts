/**
 * Child process of the lab: one delaying SOCKS5 proxy per RTT profile, and one delaying UDP relay per
 * profile in front of Caddy's QUIC port. Kept out of the lab supervisor's (and the accuracy harness's)
 * event loop so browser-driving work cannot delay its timers. Prints one JSON line when ready.
 */
import { createWriteStream, readFileSync } from 'node:fs';
import type { RttProfile } from './profiles';
import { startSocksProxy } from './socks-proxy';
import { startUdpRelay } from './udp-relay';

export interface ProxiesConfig {
  profiles: RttProfile[];
  labAddress: string;
  /** Hosts besides *.lab.test the proxies may reach (the collector), mapped to an address. */
  extraHosts: Record<string, string>;
  logFile: string;
  quic?: { targetPort: number; relayAddresses: Record<string, string> };
}

const cfg = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as ProxiesConfig;
// Asynchronous: a synchronous append on a busy disk stalled every queued chunk of every connection.
const logStream = createWriteStream(cfg.logFile, { flags: 'a' });
const log = (line: string) => void logStream.write(line + '\n');

const resolve = (host: string): string | null => {
  if (host === 'lab.test' || host.endsWith('.lab.test')) return cfg.labAddress;
  if (host in cfg.extraHosts) return cfg.extraHosts[host]!;
  return null;
};

const closers: (() => Promise<void>)[] = [];
const socks: Record<string, number> = {};
const udp: Record<string, string> = {};
for (const p of cfg.profiles) {
  const proxy = await startSocksProxy({
    profile: p.name,
    rttMs: p.rttMs,
    sourceAddress: p.sourceAddress,
    resolve,
    log,
  });
  socks[p.name] = proxy.port;
  closers.push(() => proxy.close());
  if (cfg.quic) {
    const addr = cfg.quic.relayAddresses[p.name]!;
    const relay = await startUdpRelay({
      profile: p.name,
      rttMs: p.rttMs,
      sourceAddress: p.sourceAddress,
      listenAddress: addr,
      listenPort: cfg.quic.targetPort,
      targetAddress: cfg.labAddress,
      targetPort: cfg.quic.targetPort,
      log,
    });
    udp[p.name] = `${addr}:${relay.port}`;
    closers.push(() => relay.close());
  }
}
let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await Promise.all(closers.map((c) => c()));
  logStream.end(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
// The lab supervisor holds our stdin: when it dies without stopping us, we go too.
process.stdin.on('end', stop);
process.stdin.resume();
process.stdout.write(JSON.stringify({ ready: true, socks, udp }) + '\n');
