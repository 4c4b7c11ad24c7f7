/**
 * The Configuration panel in a real browser against a real collector whose scheduler probed a real TLS
 * server twice — first with session tickets, then restarted without them — on top of generated field data
 * for the site: the checklist, the recommendations priced by the what-if model, and the change log show.
 * Screenshot: test-artifacts/dashboard/configuration.png (copied to docs/configuration-panel.png).
 */
import { execFileSync } from 'node:child_process';
import { constants as cryptoConstants, X509Certificate } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import puppeteer, { type Browser } from 'puppeteer-core';
import { build } from 'vite';
import { buildApp } from '@tlsrum/collector';
import { loadConfig } from '@tlsrum/collector/config';
import { newReadToken } from '@tlsrum/collector/auth';
import { generateDemoData, SITES } from '@tlsrum/collector/demo';

const SITE = 'shop.example.com';
const dashboardDir = fileURLToPath(new URL('../..', import.meta.url));
const artifacts = fileURLToPath(new URL('../../../test-artifacts/dashboard/', import.meta.url));
const docsShot = fileURLToPath(new URL('../../../docs/configuration-panel.png', import.meta.url));

let work: string;
let app: Awaited<ReturnType<typeof buildApp>>;
let browser: Browser;
let server: Server | null = null;
let port: number;

/** A lab CA and an RSA-4096 leaf for SITE (openssl), so the probe sees a realistic "large RSA key" site. */
function makeCerts(dir: string) {
  const run = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  run(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'ca.key']);
  run([
    'req',
    '-x509',
    '-new',
    '-key',
    'ca.key',
    '-sha256',
    '-days',
    '30',
    '-subj',
    '/CN=tlsrum test CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign',
    '-out',
    'ca.pem',
  ]);
  run(['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:4096', '-out', 'leaf.key']);
  run(['req', '-new', '-key', 'leaf.key', '-subj', `/CN=${SITE}`, '-out', 'leaf.csr']);
  writeFileSync(
    join(dir, 'leaf.ext'),
    `basicConstraints=critical,CA:FALSE\nextendedKeyUsage=serverAuth\nsubjectAltName=DNS:${SITE}\n`,
  );
  run([
    'x509',
    '-req',
    '-in',
    'leaf.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-days',
    '30',
    '-sha256',
    '-extfile',
    'leaf.ext',
    '-out',
    'leaf.pem',
  ]);
  return {
    ca: join(dir, 'ca.pem'),
    cert: readFileSync(join(dir, 'leaf.pem')),
    key: readFileSync(join(dir, 'leaf.key')),
  };
}

/** The site's server; `tickets: false` is OpenSSL's SSL_OP_NO_TICKET (Node servers keep no session cache). */
async function startServer(certs: { cert: Buffer; key: Buffer }, tickets: boolean, at = 0): Promise<number> {
  server = createServer(
    { cert: certs.cert, key: certs.key, ...(tickets ? {} : { secureOptions: cryptoConstants.SSL_OP_NO_TICKET }) },
    (_q, res) => res.end('shop\n'),
  );
  await new Promise<void>((r) => server!.listen(at, '127.0.0.1', r));
  return (server.address() as { port: number }).port;
}

const stopServer = () => new Promise((r) => (server ? server.close(r) : r(undefined)));

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'tlsrum-config-panel-'));
  const certs = makeCerts(work);
  port = await startServer(certs, true);
  const outDir = join(work, 'dist');
  await build({
    root: dashboardDir,
    configFile: join(dashboardDir, 'vite.config.ts'),
    logLevel: 'warn',
    build: { outDir, emptyOutDir: true },
  });
  app = await buildApp(
    loadConfig({
      DATA_DIR: join(work, 'data'),
      DASHBOARD_DIR: outDir,
      LOG_LEVEL: 'silent',
      MIN_CLIENTS_PER_CELL: '5',
      MAX_EVENT_LOOP_DELAY_MS: '0',
      // Cycles are run by the test (runCycle), one before and one after the server's change.
      PROBE_INTERVAL_MS: '0',
      PROBE_RUNS: '1',
      PROBE_CA_FILE: certs.ca,
      PROBE_CONNECT_TO: `${SITE}:443:127.0.0.1:${port}`,
    }),
  );
  await app.storeStatus.whenReady;
  // The site's field data agree with the server the probe sees (an RSA-4096 leaf sent alone, no stapling), so
  // its what-if prices the same certificate the checklist shows.
  const leafBytes = new X509Certificate(certs.cert).raw.length;
  const sites = SITES.map((s) =>
    s.hostname === SITE
      ? {
          ...s,
          crypto: { key: 'rsa' as const, bits: 4096, chain: 1, chainBytes: leafBytes, ocspStapled: false, pq: false },
        }
      : s,
  );
  await generateDemoData(app.store.ingest, { records: 40_000, days: 7, seed: 5, sites });
  await app.listen({ host: '127.0.0.1', port: 0 });
  browser = await puppeteer.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  // Probe 1: tickets on. Probe 2: the server restarted without tickets on the same port.
  const { token, hash } = newReadToken();
  await app.sites.register(SITE, hash);
  const [first] = await app.probes.runCycle();
  expect(first!.outcome.result.resumption['1.3']).toBe(true);
  await stopServer();
  await startServer(certs, false, port);
  const [second] = await app.probes.runCycle();
  expect(second!.outcome.result.resumption['1.3']).toBe(false);
  (globalThis as { token?: string }).token = token;
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await stopServer();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('dashboard: Configuration panel', () => {
  it('shows the checklist, priced recommendations and what changed when', async () => {
    const token = (globalThis as { token?: string }).token!;
    const page = await browser.newPage();
    await page.setViewport({ width: 1440, height: 1000 });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
    await page.goto(`${base}/?range=7d&site=${SITE}`);
    await page.type('input[name=token]', token);
    await page.$eval('input[name=token]', (i) => i.dispatchEvent(new Event('change', { bubbles: true })));
    await page.waitForFunction(() => document.querySelector('#config')?.getAttribute('data-state') === 'ready', {
      timeout: 60_000,
    });
    const text = await page.$eval('#config', (s) => s.textContent ?? '');
    // Checklist rows with the probe's verdicts.
    const rows = await page.$$eval('#config table:first-of-type tbody tr', (trs) =>
      trs.map((tr) => Array.from(tr.children, (c) => c.textContent)),
    );
    expect(rows).toContainEqual(['TLS 1.3', '✓']);
    expect(rows).toContainEqual(['Session resumption (tickets)', '✗']);
    expect(rows).toContainEqual(['ECDSA or RSA-2048 certificate key', '✗']);
    expect(rows).toContainEqual(['OCSP stapling', '✗']);
    // The probed server is this process's own Node TLS server: with OpenSSL 3.5 (Node 24) both ends offer
    // X25519MLKEM768 and agree on it; with OpenSSL 3.0 the probe cannot offer it, so it cannot tell.
    expect(rows).toContainEqual(['Post-quantum key exchange', process.versions.openssl.startsWith('3.0') ? '?' : '✓']);
    // Recommendations, each with a saving estimated from the site's own data and its assumption.
    expect(text).toContain('Make session resumption work');
    expect(text).toContain('Use an ECDSA P-256 certificate');
    expect(text).toMatch(/Estimated saving for your visitors: [\d.]+ (ms|s) at p75/);
    expect(await page.$$eval('#config details', (d) => d.length)).toBeGreaterThanOrEqual(3);
    // What changed when: the tickets turned off between the two probes.
    expect(text).toContain('What changed when');
    expect(text).toMatch(/TLS 1\.3 resumptiononoff/);
    await page.$eval('#config', (s) => s.scrollIntoView());
    mkdirSync(artifacts, { recursive: true });
    const shot = join(artifacts, 'configuration.png');
    await (await page.$('#config'))!.screenshot({ path: shot });
    copyFileSync(shot, docsShot);
    expect(errors).toEqual([]);
    await page.close();
  });
});
