/**
 * The "Add your site" screenshots in docs/, taken from the real thing: the built dashboard served by a
 * collector on the embedded store, and a site owner's HTTPS server (a lab certificate; the collector
 * reaches it through the PROBE_CONNECT_TO allow-list) on which the script publishes the challenge the
 * page shows. Writes docs/add-site-claim.png (a refused name), docs/add-site-prove.png (the challenge,
 * and the plain reason a first check failed) and docs/add-site-token.png (the token shown once and the
 * measurement to add).
 *
 * Run from the repository root: `pnpm exec tsx dashboard/scripts/add-site-screenshots.ts` (needs Chromium, openssl).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import puppeteer from 'puppeteer-core';
import { build } from 'vite';
import { buildApp } from '@tlsrum/collector';
import { loadConfig } from '@tlsrum/collector/config';
import { labCert } from './lab-cert';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SITE = 'shop.example.org';
const POLL = { polling: 100, timeout: 60_000 };

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'tlsrum-add-site-'));
  let published: string | null = null;
  const { cert, key, ca } = labCert(work, SITE);
  const site = createServer({ cert, key }, (req, res) => {
    if (req.url === '/.well-known/tlsrum.txt' && published)
      return res.writeHead(200, { 'content-type': 'text/plain' }).end(`${published}\n`);
    res.writeHead(404).end('not found');
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  const sitePort = (site.address() as { port: number }).port;

  const dashboardDir = join(work, 'dashboard');
  await build({
    root: join(root, 'dashboard'),
    configFile: join(root, 'dashboard/vite.config.ts'),
    logLevel: 'warn',
    build: { outDir: dashboardDir, emptyOutDir: true },
  });
  const app = await buildApp(
    loadConfig({
      DATA_DIR: join(work, 'data'),
      DASHBOARD_DIR: dashboardDir,
      LOG_LEVEL: 'silent',
      MAX_EVENT_LOOP_DELAY_MS: '0',
      PROBE_INTERVAL_MS: '0',
      // Every answer fresh: records are stored and asked about again at once.
      ANSWER_CACHE_SECONDS: '0',
      ALERT_INTERVAL_MS: '0',
      PROBE_CONNECT_TO: `${SITE}:443:127.0.0.1:${sitePort}`,
      PROBE_CA_FILE: ca,
    }),
  );
  await app.storeStatus.whenReady;
  await app.listen({ host: '127.0.0.1', port: 0 });
  const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  const browser = await puppeteer.launch({
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
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: 1000, height: 800 });
    await page.goto(`${url}/add-site.html`, { waitUntil: 'load' });

    await page.type('#hostname', 'localhost:8080');
    await page.click('#claim-form button');
    await page.waitForFunction(() => !document.getElementById('claim-error')!.hidden, POLL);
    await page.screenshot({ path: join(root, 'docs/add-site-claim.png'), fullPage: true });

    await page.$eval('#hostname', (el) => ((el as HTMLInputElement).value = ''));
    await page.type('#hostname', SITE);
    await page.click('#claim-form button');
    await page.waitForFunction(() => !document.getElementById('prove-body')!.hidden, POLL);
    await page.click('#verify');
    await page.waitForFunction(() => !document.getElementById('verify-error')!.hidden, POLL);
    await page.screenshot({ path: join(root, 'docs/add-site-prove.png'), fullPage: true });

    published = await page.$eval('#challenge-file', (el) => el.textContent);
    await page.click('#verify');
    await page.waitForFunction(() => !document.getElementById('measure-body')!.hidden, POLL);
    await new Promise((r) => setTimeout(r, 800)); // the smooth scroll
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: join(root, 'docs/add-site-token.png'), fullPage: true });
    console.log('screenshots: docs/add-site-claim.png, docs/add-site-prove.png, docs/add-site-token.png');
  } finally {
    await browser.close();
    await app.close();
    site.close();
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error('screenshots failed:', err);
  process.exit(1);
});
