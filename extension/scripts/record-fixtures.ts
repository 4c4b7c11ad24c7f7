/**
 * Records the classifier's fixtures from real Chromium and Firefox ESR (shared/test/fixtures/*.json):
 * navigation timing entries of cold and warm (resumed) visits to nginx servers with known TLS
 * configurations, over a SOCKS5 proxy that adds a known round-trip time, and directly on loopback.
 * The truth of each connection comes from the servers and the wire, never from the classifier: nginx
 * says version, resumption and early data (Server-Timing `$ssl_protocol $ssl_session_reused`,
 * `$ssl_early_data`), and the proxy counts the round trips the request waited for (TLS record types in
 * the client's flights, see e2e/lab/flight-watcher.ts). On loopback there is no RTT to count against:
 * the expected class is `unknown`.
 *
 * Firefox sends no TLS early data through a proxy, so for Firefox a third pass goes through a plain TCP
 * relay with the same delays (`relay` fixtures): the kernel answers the TCP handshake there, so the TCP
 * phase is ~0 and no RTT estimate exists, but the early-data entry's shape is recorded.
 *
 * Usage: pnpm --filter @tlsrum/extension record-fixtures [rttMs] [chromium|firefox]
 *        (default 200 ms: large against the scheduling noise of a busy machine; both browsers, ~3 min)
 */
import { writeFileSync, mkdirSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  connectionTimingOf,
  DUMP_TIMING_ENTRIES,
  serverTimingOf,
  type ConnectionTiming,
  type TimingEntriesDump,
} from '@tlsrum/shared/classify';
import type { HandshakeClass } from '@tlsrum/shared/constants';
import { launch, type BrowserName } from '../test/support/browsers';
import { makeCerts, startNginx, tempLabDir, type ServerSpec } from '../test/support/lab';
import { startDelayProxy, startDelayRelay, type DelayProxy } from '@tlsrum/e2e/lab/delay-proxy';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const outDir = resolve(root, '../shared/test/fixtures');
const RTT = Number(process.argv[2] ?? 200);

/** A page that is done when loaded; no sub-resources, no favicon request. */
const PAGE =
  '<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>done</title></head><body>fixture</body></html>';

type Server = ServerSpec;

/**
 * Visited first and not recorded: a fresh browser's first TLS connection also pays one-off start-up
 * work (certificate verifier, NSS database), seen as +300 ms on a cold TLS 1.2 handshake in Chromium.
 */
const WARMUP: Server = {
  host: 'warmup.lab.test',
  protocols: 'TLSv1.3',
  http2: true,
  tao: false,
  serverTiming: false,
  keepalive: '1s',
  files: { 'index.html': PAGE },
};

const SERVERS: Server[] = [
  // TLS 1.2 over HTTP/1.1 only: full 2 RTT without False Start, 1 RTT with it or resumed.
  {
    host: 'tls12.lab.test',
    protocols: 'TLSv1.2',
    http2: false,
    tao: false,
    serverTiming: true,
    earlyDataTiming: true,
    keepalive: '1s',
    files: { 'index.html': PAGE },
  },
  // TLS 1.3 with only P-384: browsers send no key share for it → HelloRetryRequest, 2 RTT like full TLS 1.2.
  {
    host: 'hrr.lab.test',
    protocols: 'TLSv1.3',
    http2: true,
    tao: false,
    serverTiming: true,
    earlyDataTiming: true,
    ecdhCurve: 'secp384r1',
    tickets: false,
    sessionCache: false,
    keepalive: '1s',
    files: { 'index.html': PAGE },
  },
  // TLS 1.3 with h2, tickets and early data: full 1 RTT, resumed 1 RTT, 0-RTT when the browser sends early data.
  {
    host: 'tls13.lab.test',
    protocols: 'TLSv1.3',
    http2: true,
    tao: false,
    serverTiming: true,
    earlyDataTiming: true,
    earlyData: true,
    keepalive: '1s',
    files: { 'index.html': PAGE },
  },
];

export interface Fixture {
  id: string;
  browser: BrowserName;
  browserVersion: string;
  /** Added round-trip time, or null for direct loopback. */
  rttMs: number | null;
  /** How the delay was added: SOCKS5 proxy (TCP handshake delayed too), plain relay (not), or none. */
  path: 'proxy' | 'relay' | 'loopback';
  visit: 'cold' | 'warm';
  server: { protocols: string; http2: boolean; earlyData: boolean };
  /** nginx's own account of the connection, and the proxy's count of round trips before the request. */
  truth: { tlsVersion: '1.2' | '1.3' | null; resumed: boolean; earlyData: boolean; roundTrips: number | null };
  /** null when the proxy could not tell (the browser opened more than one connection for the visit). */
  expectedClass: HandshakeClass | null;
  timing: ConnectionTiming;
  serverTiming: { name: string; description: string }[];
}

function expectedClass(truth: Fixture['truth'], rttMs: number | null): HandshakeClass | null {
  if (rttMs === null) return 'unknown'; // loopback: no usable RTT estimate
  return truth.roundTrips === 0
    ? '0rtt'
    : truth.roundTrips === 1
      ? '1rtt'
      : truth.roundTrips === 2
        ? 'full-2rtt'
        : null;
}

async function record(
  name: BrowserName,
  path: Fixture['path'],
  rttMs: number | null,
  labDir: string,
  nginx: Awaited<ReturnType<typeof startNginx>>,
  certs: ReturnType<typeof makeCerts>,
  servers: Server[] = SERVERS,
): Promise<Fixture[]> {
  const proxy =
    path === 'proxy' && rttMs !== null
      ? await startDelayProxy(rttMs, (h) => (h.endsWith('.lab.test') || h === '127.0.0.1' ? '127.0.0.1' : null))
      : null;
  const relays = new Map<string, DelayProxy>();
  if (path === 'relay' && rttMs !== null)
    for (const s of servers) relays.set(s.host, await startDelayRelay(rttMs, s.host, nginx.ports[s.host]!));
  const b = await launch(name, {
    profileDir: join(labDir, `profile-${name}-${path}`),
    certs,
    hosts: [WARMUP, ...SERVERS].map((s) => s.host),
    ...(proxy ? { socksPort: proxy.port } : {}),
    // TLS 1.3 early data over TCP is behind a feature in Chromium.
    chromiumArgs: ['--enable-features=EnableTLS13EarlyData'],
  });
  const out: Fixture[] = [];
  try {
    const browserVersion = await b.browser.version();
    const warm = await b.browser.newPage();
    await warm.goto(nginx.url(WARMUP.host, '/index.html'), { waitUntil: 'load' });
    await warm.close();
    for (const visit of ['cold', 'warm'] as const) {
      // Let the servers close the previous visit's connections (keepalive 1 s): the warm visit opens
      // new ones and may resume.
      if (visit === 'warm') await new Promise((r) => setTimeout(r, 1_600));
      for (const s of servers) {
        const page = await b.browser.newPage();
        const wire = proxy ?? relays.get(s.host) ?? null;
        const before = wire?.seen.length ?? 0;
        const relay = relays.get(s.host);
        await page.goto(relay ? `https://${s.host}:${relay.port}/index.html` : nginx.url(s.host, '/index.html'), {
          waitUntil: 'load',
        });
        // The page hands over its entries' JSON; the shared reader makes them timings (as in the extension).
        const dump = (await page.evaluate(DUMP_TIMING_ENTRIES)) as TimingEntriesDump;
        await page.close();
        const raw = dump.entries.find((e) => e.entryType === 'navigation');
        const timing = raw && connectionTimingOf(raw);
        if (!timing) throw new Error(`${name} ${s.host} ${visit}: no navigation timing entry`);
        const serverTiming = serverTimingOf(raw);
        const tls = serverTiming.find((m) => m.name === 'tls')?.description.split(' ') ?? [];
        const conns = wire ? wire.seen.slice(before).filter((c) => c.host === s.host || c.host === '127.0.0.1') : [];
        if (wire && conns.length !== 1)
          console.warn(`${name} ${s.host} ${visit}: ${conns.length} connections through the proxy`);
        const truth = {
          tlsVersion: tls[0] === 'TLSv1.3' ? ('1.3' as const) : tls[0] === 'TLSv1.2' ? ('1.2' as const) : null,
          resumed: tls[1] === 'r',
          earlyData: serverTiming.find((m) => m.name === 'ed')?.description === '1',
          roundTrips: conns.length === 1 ? conns[0]!.roundTripsBeforeData : null,
        };
        out.push({
          id: `${name}-${path === 'loopback' ? 'loopback' : `${path === 'relay' ? 'relay-' : ''}rtt${rttMs}`}-${s.host.split('.')[0]}-${visit}`,
          browser: name,
          browserVersion,
          rttMs,
          path,
          visit,
          server: { protocols: s.protocols, http2: s.http2, earlyData: !!s.earlyData },
          truth,
          expectedClass: expectedClass(truth, rttMs),
          timing,
          serverTiming,
        });
      }
    }
  } finally {
    await b.close();
    await proxy?.close();
    for (const r of relays.values()) await r.close();
  }
  return out;
}

const lab = tempLabDir('tlsrum-fixtures-');
try {
  const certs = makeCerts(
    join(lab.dir, 'certs'),
    [WARMUP, ...SERVERS].map((s) => s.host),
  );
  const nginx = await startNginx(join(lab.dir, 'nginx'), certs, [WARMUP, ...SERVERS]);
  try {
    mkdirSync(outDir, { recursive: true });
    const only = process.argv[3] as BrowserName | undefined;
    for (const name of only ? [only] : (['chromium', 'firefox'] as const)) {
      const fixtures = [
        ...(await record(name, 'proxy', RTT, lab.dir, nginx, certs)),
        ...(await record(name, 'loopback', null, lab.dir, nginx, certs)),
        // Firefox's TCP early data, which it does not send through a proxy.
        ...(name === 'firefox'
          ? await record(
              name,
              'relay',
              RTT,
              lab.dir,
              nginx,
              certs,
              SERVERS.filter((s) => s.earlyData),
            )
          : []),
      ];
      const file = join(outDir, `${name}.json`);
      writeFileSync(
        file,
        `${JSON.stringify({ recordedAt: new Date().toISOString(), rttMs: RTT, fixtures }, null, 1)}\n`,
      );
      for (const f of fixtures) {
        const t = f.timing;
        const tcp = t.secureConnectionStart - t.connectStart;
        const tlsMs = t.connectEnd - t.secureConnectionStart;
        console.log(
          `${f.id.padEnd(36)} ${t.nextHopProtocol.padEnd(8)} truth ${f.truth.tlsVersion} resumed=${f.truth.resumed} ed=${f.truth.earlyData} rt=${f.truth.roundTrips}  tcp ${tcp.toFixed(1)} tls ${tlsMs.toFixed(1)} req-ce ${(t.requestStart - t.connectEnd).toFixed(1)} → expect ${f.expectedClass}`,
        );
      }
      console.log(`wrote ${file}`);
    }
  } finally {
    await nginx.stop();
  }
} finally {
  lab.remove();
}
