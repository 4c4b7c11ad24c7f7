/**
 * The real collector (embedded ClickHouse in a temporary folder) for browser tests, behind a TCP
 * relay that the test can stop and restart on the same port: "collector down" as the extension sees
 * it (connection refused), while the store keeps running in this process.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '@tlsrum/collector';
import { seedStore } from '@tlsrum/collector/test/store-template';

type FastifyInstance = Awaited<ReturnType<typeof buildApp>>;
import { loadConfig } from '@tlsrum/collector/config';

export const ADMIN_TOKEN = 'extension-test-admin-token';

export interface TestCollector {
  app: FastifyInstance;
  /** The URL the extension is configured with (the relay). */
  url: string;
  /** Every request that reached the collector: method and route pattern (never a query). */
  requests: { method: string; url: string }[];
  registerSite: (hostname: string) => Promise<void>;
  /** All stored rows, after the spool is flushed. */
  rows: () => Promise<Record<string, unknown>[]>;
  down: () => Promise<void>;
  up: () => Promise<void>;
  close: () => Promise<void>;
}

export async function startCollector(): Promise<TestCollector> {
  const dataDir = seedStore(mkdtempSync(join(tmpdir(), 'tlsrum-ext-collector-')));
  // No scheduled probes: the registered lab names resolve only inside the browsers, so a probe would ask the
  // system resolver (tests talk to loopback only). The accuracy arm stores the lab sites' probe results itself.
  const config = loadConfig({
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'silent',
    ADMIN_TOKEN,
    MIN_CLIENTS_PER_CELL: '1',
    PROBE_INTERVAL_MS: '0',
    // Every answer fresh: records are stored and asked about again at once.
    ANSWER_CACHE_SECONDS: '0',
  });
  const app = await buildApp(config);
  const requests: { method: string; url: string }[] = [];
  app.addHook('onRequest', async (request) => {
    requests.push({ method: request.method, url: request.url });
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  await app.storeStatus.whenReady;
  const target = (app.server.address() as { port: number }).port;

  const sockets = new Set<Socket>();
  let relay: Server | null = null;
  let port = 0;
  const up = () =>
    new Promise<void>((resolve, reject) => {
      relay = createServer((client) => {
        const upstream = connect(target, '127.0.0.1');
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on('close', () => sockets.delete(s));
          s.on('error', () => s.destroy());
        }
        client.pipe(upstream).pipe(client);
      });
      relay.once('error', reject);
      relay.listen(port, '127.0.0.1', () => {
        port = (relay!.address() as { port: number }).port;
        resolve();
      });
    });
  const down = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      if (!relay) return resolve();
      relay.close(() => resolve());
      relay = null;
    });
  await up();

  return {
    app,
    url: `http://127.0.0.1:${port}`,
    requests,
    registerSite: async (hostname) => {
      let res = await app.inject({
        method: 'POST',
        url: '/v1/sites',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        payload: { hostname },
      });
      // Under load (2 shared cores) the collector may shed a request with 503 right after start.
      for (let i = 0; i < 20 && res.statusCode === 503; i++) {
        await new Promise((r) => setTimeout(r, 500));
        res = await app.inject({
          method: 'POST',
          url: '/v1/sites',
          headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
          payload: { hostname },
        });
        requests.splice(requests.length - 1, 1);
      }
      if (res.statusCode !== 201) throw new Error(`register ${hostname}: ${res.statusCode} ${res.body}`);
      await app.sites.refresh();
      // The test's own request is not the extension's.
      requests.splice(requests.length - 1, 1);
    },
    rows: async () => {
      await app.ingest.flush();
      const rs = await app.store.query.query({ query: 'SELECT * FROM handshakes ORDER BY ts', format: 'JSONEachRow' });
      return rs.json<Record<string, unknown>>();
    },
    down,
    up,
    close: async () => {
      await down();
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
