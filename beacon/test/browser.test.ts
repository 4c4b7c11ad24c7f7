/**
 * The served beacon in real browsers (Chromium, Firefox ESR under puppeteer-core): a page of a
 * registered site, served over HTTPS by the lab's nginx, carries the tag; leaving the page sends its new
 * connections to a collector started here (behind a TLS relay: an https page cannot post to http). The
 * records arrive classified, only for the site's own hosts, and the beacon leaves no cookie and no storage.
 * The tag carries the script's integrity hash, so the script's CORS and CORP headers are exercised too.
 */
import { connect } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '@tlsrum/collector';
import { seedStore } from '@tlsrum/collector/test/store-template';
import { buildServedScript } from '../src/build';
import { loadConfig } from '@tlsrum/collector/config';
import { launch, type BrowserName } from '@tlsrum/extension/test/support/browsers';
import { makeCerts, startNginx, tempLabDir, type Certs, type Nginx } from '@tlsrum/extension/test/support/lab';
import { freePort } from '@tlsrum/e2e/lab/ports';

const SITE = 'shop.lab.test';
const STATIC = 'static.lab.test';
const THIRD = 'third.lab.test';
const RUM = 'rum.lab.test';
const HOSTS = [SITE, STATIC, THIRD, RUM];
const ADMIN = 'beacon-browser-test-admin';

type App = Awaited<ReturnType<typeof buildApp>>;

describe('the served beacon in real browsers', () => {
  let lab: { dir: string; remove: () => void };
  let certs: Certs;
  let nginx: Nginx;
  let app: App;
  let relay: TlsServer;
  let rumPort: number;
  const setCookies: string[] = [];

  beforeAll(async () => {
    lab = tempLabDir('tlsrum-beacon-');
    certs = makeCerts(join(lab.dir, 'certs'), HOSTS);
    rumPort = await freePort();
    // The tag as the docs give it: with the integrity hash the build prints (so fetched with CORS).
    const { integrity } = await buildServedScript();
    const page = (ports: Record<string, number>) => `<!doctype html><html><head><link rel="icon" href="data:,">
<script async src="https://${RUM}:${rumPort}/beacon.js" data-site="${SITE}" data-hosts="${STATIC}" integrity="${integrity}" crossorigin="anonymous"></script></head>
<body><img src="https://${STATIC}:${ports[STATIC]}/a.gif"><img src="https://${THIRD}:${ports[THIRD]}/b.gif"><img src="/c.gif"></body></html>`;
    nginx = await startNginx(join(lab.dir, 'nginx'), certs, [
      {
        host: SITE,
        protocols: 'TLSv1.3',
        http2: true,
        tao: false,
        serverTiming: true,
        files: (ports) => ({
          'index.html': page(ports),
          'empty.html': '<!doctype html><link rel="icon" href="data:,"><p>empty</p>',
          'c.gif': '',
        }),
      },
      { host: STATIC, protocols: 'TLSv1.2', http2: true, tao: true, serverTiming: true, files: { 'a.gif': '' } },
      // A third party that allows timing but sends no Server-Timing: any record with it would show.
      { host: THIRD, protocols: 'TLSv1.3', http2: true, tao: true, serverTiming: false, files: { 'b.gif': '' } },
    ]);
    const dataDir = join(lab.dir, 'collector');
    seedStore(dataDir);
    app = await buildApp(
      loadConfig({
        DATA_DIR: dataDir,
        HOST: '127.0.0.1',
        PORT: '0',
        LOG_LEVEL: 'silent',
        ADMIN_TOKEN: ADMIN,
        MIN_CLIENTS_PER_CELL: '1',
        PROBE_INTERVAL_MS: '0',
        // Every answer fresh: records are stored and asked about again at once.
        ANSWER_CACHE_SECONDS: '0',
      }),
    );
    app.addHook('onSend', async (_request, reply) => {
      const c = reply.getHeader('set-cookie');
      if (c) setCookies.push(String(c));
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    await app.storeStatus.whenReady;
    const admin = { authorization: `Bearer ${ADMIN}` };
    expect(
      (await app.inject({ method: 'POST', url: '/v1/sites', payload: { hostname: SITE }, headers: admin })).statusCode,
    ).toBe(201);
    expect(
      (
        await app.inject({
          method: 'POST',
          url: `/v1/sites/${SITE}/probe-targets`,
          payload: { hostname: STATIC },
          headers: admin,
        })
      ).statusCode,
    ).toBe(201);
    // TLS in front of the collector's plain HTTP port, as a reverse proxy would be.
    const target = (app.server.address() as { port: number }).port;
    relay = createTlsServer(
      { key: readFileSync(certs.keyOf(RUM)), cert: readFileSync(certs.certOf(RUM)) },
      (socket) => {
        const upstream = connect(target, '127.0.0.1');
        socket.on('error', () => upstream.destroy());
        upstream.on('error', () => socket.destroy());
        socket.pipe(upstream).pipe(socket);
      },
    );
    await new Promise<void>((resolve) => relay.listen(rumPort, '127.0.0.1', resolve));
  }, 120_000);

  afterAll(async () => {
    relay?.close();
    await app?.close();
    await nginx?.stop();
    lab?.remove();
  });

  const pageRows = async (browser: string) => {
    await app.ingest.flush();
    const rs = await app.store.query.query({
      query: "SELECT * FROM handshakes WHERE source = 'page' AND browser = {browser:String} ORDER BY ts",
      query_params: { browser },
      format: 'JSONEachRow',
    });
    return rs.json<Record<string, unknown>>();
  };

  it.each<[BrowserName, string]>([
    ['chromium', 'chromium'],
    ['firefox', 'firefox'],
  ])(
    "%s: leaving the page sends its new connections to the site's hosts, classified; no cookie, no storage",
    async (name, browserField) => {
      const b = await launch(name, { profileDir: join(lab.dir, `profile-${name}`), certs, hosts: HOSTS });
      try {
        const page = await b.browser.newPage();
        await page.goto(nginx.url(SITE, '/index.html'), { waitUntil: 'load' });
        // The async tag has run once its entry is in the timeline (it delays the load event anyway).
        await page.waitForFunction(
          (u: string) => performance.getEntriesByType('resource').some((e) => e.name.startsWith(u)),
          {},
          `https://${RUM}:${rumPort}/beacon.js`,
        );
        // Leaving the page (pagehide) sends the beacon; the next page is the site's own, without the tag.
        await page.goto(nginx.url(SITE, '/empty.html'), { waitUntil: 'load' });
        let rows: Record<string, unknown>[] = [];
        for (let i = 0; i < 100 && rows.length < 2; i++) {
          rows = await pageRows(browserField);
          if (rows.length < 2) await new Promise((r) => setTimeout(r, 200));
        }
        expect(rows.find((r) => r.entryType === 'navigation')).toMatchObject({
          site: SITE,
          protocol: 'h2',
          transport: 'tcp',
          tlsVersion: '1.3',
          tlsVersionSource: 'server-timing',
          resumed: false,
          resumedSource: 'server-timing',
        });
        // The site's extra hostname, with its own Server-Timing (TLS 1.2, a full handshake).
        expect(rows.find((r) => r.entryType === 'resource' && r.tlsVersion === '1.2')).toMatchObject({
          site: SITE,
          tlsVersionSource: 'server-timing',
          resumed: false,
        });
        // Nothing of the third party (no Server-Timing there) and nothing over the reused connection.
        expect(rows.map((r) => r.tlsVersionSource)).toEqual(rows.map(() => 'server-timing'));
        expect(rows.length).toBe(2);
        expect(new Set(rows.map((r) => r.clientToken)).size).toBe(1);

        const stored = await page.evaluate(async () => ({
          cookie: document.cookie,
          local: localStorage.length,
          session: sessionStorage.length,
          databases: typeof indexedDB.databases === 'function' ? (await indexedDB.databases()).length : 0,
        }));
        expect(stored).toEqual({ cookie: '', local: 0, session: 0, databases: 0 });
        await page.goto(`https://${RUM}:${rumPort}/healthz`);
        expect(await page.evaluate(() => document.cookie)).toBe('');
        expect(setCookies).toEqual([]);
      } finally {
        await b.close();
      }
    },
  );
});
