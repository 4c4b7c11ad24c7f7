/**
 * `pnpm screenshots`: the pictures in the READMEs, taken from the real thing — the built extension in
 * Chromium against the local TLS lab (nginx) and a collector on the embedded store with generated demo
 * data, and the dashboard that collector serves. Writes:
 *
 * - extension/docs/screenshots/{onboarding,popup-off,popup-on,popup-paused,options}.png
 * - docs/dashboard.png (the first screen of every site together, as the README shows it first),
 *   docs/dashboard-site.png (the first screen of one site's view, with its read token), docs/beacon-site-view.png
 *   (a site's first screen, on its beacon's records), docs/dashboard-own-runs.png (the same site's own synthetic
 *   runs, sent with its token), docs/dashboard-full.png (every panel, every site),
 *   docs/dashboard-crypto.png (the Cryptography panel, every site, 7 days), docs/dashboard-hidden.png (the
 *   comparison for a country with few people: its hidden groups counted) and docs/dashboard-empty.png (a
 *   collector with nothing recorded yet), all at 1280 px
 *
 * Needs what the browser tests need (Chromium, nginx, openssl: node scripts/ensure-system-deps.mjs).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'puppeteer-core';
import { build } from 'vite';
import { buildApp } from '@tlsrum/collector';
import { loadConfig } from '@tlsrum/collector/config';
import { generateDemoData } from '@tlsrum/collector/demo';
import { SITES } from '@tlsrum/collector/demo/profiles';
import { newReadToken } from '@tlsrum/collector/auth';
import { probeWithIdentity } from '@tlsrum/probe';
import { insertProbes } from '@tlsrum/collector/probes/store';
import { extensionPage, launchChromium } from '../test/support/browsers';
import { makeCerts, startNginx, tempLabDir } from '../test/support/lab';
import { HOSTS, LAB_SERVERS, pageUrl, secondPageUrl, visit } from '../test/support/pages';
import { buildTarget } from './build';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const shots = join(root, 'extension/docs/screenshots');
// Generous: the machine may be busy (demo data, two browsers' worth of pages).
const POLL = { polling: 100, timeout: 120_000 };
const step = (what: string) => console.log(`screenshots: ${what}`);

async function collectorWithDemoData(work: string) {
  const dashboardDir = join(work, 'dashboard');
  await build({
    root: join(root, 'dashboard'),
    configFile: join(root, 'dashboard/vite.config.ts'),
    logLevel: 'warn',
    build: { outDir: dashboardDir, emptyOutDir: true },
  });
  const config = loadConfig({
    DATA_DIR: join(work, 'data'),
    DASHBOARD_DIR: dashboardDir,
    LOG_LEVEL: 'silent',
    ADMIN_TOKEN: 'screenshots-admin-token-000',
    MIN_CLIENTS_PER_CELL: '5',
    MAX_EVENT_LOOP_DELAY_MS: '0',
    RATE_LIMIT_PER_MINUTE: '0',
    ALERT_INTERVAL_MS: '0',
    // Every answer fresh: the script stores records between pictures.
    ANSWER_CACHE_SECONDS: '0',
    OPERATOR_NAME: 'Example Networks Ltd (demo)',
    OPERATOR_CONTACT: 'privacy@example.net',
    RETENTION_DAYS: '90',
  });
  const app = await buildApp(config);
  await app.storeStatus.whenReady;
  await generateDemoData(app.store.ingest, { records: 300_000, days: 30, seed: 5 });
  const tokens: Record<string, string> = {};
  for (const site of [...SITES.map((s) => s.hostname).filter(Boolean), 'a.lab.test', 'b.lab.test']) {
    const { token, hash } = newReadToken();
    await app.sites.register(site, hash);
    tokens[site] = token;
  }
  await app.alerts.evaluate(Date.now());
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, url: `http://127.0.0.1:${(app.server.address() as { port: number }).port}`, tokens };
}

/** Every panel of the dashboard has settled (ready, empty or failed) and its charts have animated in. */
async function panelsDrawn(page: Page): Promise<void> {
  await page.waitForFunction(
    () => [...document.querySelectorAll('section.panel')].every((s) => (s as HTMLElement).dataset.state !== 'loading'),
    POLL,
  );
  await new Promise((r) => setTimeout(r, 1_500));
}

/** The popup as the toolbar shows it: its own width, the page's height. */
async function shootPopup(p: Page, file: string): Promise<void> {
  step(file);
  // A background tab renders no frames (the onboarding tab opened at install may be in front).
  await p.bringToFront();
  await p.setViewport({ width: 600, height: 900 });
  await p.reload({ waitUntil: 'load' });
  await new Promise((r) => setTimeout(r, 800));
  const body = (await p.$('body'))!;
  await body.screenshot({ path: join(shots, file) });
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'tlsrum-screenshots-'));
  const lab = tempLabDir('tlsrum-screenshots-lab-');
  mkdirSync(shots, { recursive: true });
  step('demo collector');
  const collector = await collectorWithDemoData(work);
  step('lab and browser');
  const certs = makeCerts(join(lab.dir, 'certs'), HOSTS);
  const nginx = await startNginx(join(lab.dir, 'nginx'), certs, LAB_SERVERS);
  // The lab sites' profiles, as the collector's scheduler would probe them: b.lab.test (TLS 1.2 only,
  // never resumes, no Server-Timing) then shows in the popup as known from the site's profile.
  step('probing the lab sites');
  const ca = [readFileSync(certs.caPem, 'utf8')];
  const probed = await Promise.all(
    ['a.lab.test', 'b.lab.test'].map(async (host) => ({
      site: host,
      hostname: host,
      at: Date.now(),
      outcome: await probeWithIdentity(nginx.url(host, '/'), {
        runs: 1,
        ca,
        resolve: { [host]: '127.0.0.1' },
        insecure: false,
        timeoutMs: 5000,
      }),
    })),
  );
  await insertProbes(collector.app.store.query, probed);
  await collector.app.profiles.refresh();
  const { dir } = await buildTarget('chromium');
  const b = await launchChromium({ profileDir: join(lab.dir, 'profile'), certs, hosts: HOSTS, extensionDir: dir });
  try {
    // Before consent: the popup, then the consent page pointed at the demo collector, who runs it asked.
    const popupOff = await extensionPage(b, 'popup/index.html');
    await shootPopup(popupOff, 'popup-off.png');
    const setup = await extensionPage(b, 'options/index.html');
    await setup.bringToFront();
    await setup.$eval('#collector', (el) => ((el as HTMLInputElement).value = ''));
    await setup.type('#collector', collector.url);
    await setup.click('button[type=submit]');
    await setup.waitForFunction(() => document.getElementById('status')!.textContent!.startsWith('Saved'), POLL);
    await setup.close();
    const onboarding = await extensionPage(b, 'onboarding/index.html');
    await onboarding.bringToFront();
    await onboarding.setViewport({ width: 900, height: 900 });
    await onboarding.click('#ask-who');
    await onboarding.waitForFunction(() => document.getElementById('about')!.textContent!.includes('Run by'), POLL);
    step('onboarding.png');
    await onboarding.screenshot({ path: join(shots, 'onboarding.png'), fullPage: true });
    await onboarding.click('#agree');
    await onboarding.waitForFunction(
      () => document.getElementById('status')!.textContent!.includes('Measuring is on'),
      POLL,
    );

    // Measuring: a few lab pages visited.
    await visit(b, pageUrl(nginx.url));
    await visit(b, secondPageUrl(nginx.url));
    await new Promise((r) => setTimeout(r, 2_000));
    const popup = await extensionPage(b, 'popup/index.html');
    await popup.bringToFront();
    await popup.waitForFunction(() => Number(document.getElementById('count')!.textContent) > 0, POLL);
    await shootPopup(popup, 'popup-on.png');
    await popup.bringToFront();
    await popup.click('#pause');
    await popup.waitForFunction(() => document.getElementById('state')!.dataset.state === 'paused', POLL);
    await shootPopup(popup, 'popup-paused.png');

    const options = await extensionPage(b, 'options/index.html');
    await options.bringToFront();
    await options.setViewport({ width: 900, height: 800 });
    await options.type('#exclude-host', 'intranet.example');
    await options.click('#exclude-form button[type=submit]');
    await options.waitForFunction(
      () => document.getElementById('status')!.textContent!.includes('no longer measured'),
      POLL,
    );
    await options.click('#test');
    await options.waitForFunction(() => document.getElementById('about')!.textContent!.includes('Connected'), POLL);
    step('options.png');
    await options.screenshot({ path: join(shots, 'options.png'), fullPage: true });

    // The dashboard: the site whose alert fires, with its read token.
    step('dashboard');
    const page = await b.browser.newPage();
    await page.bringToFront();
    await page.setViewport({ width: 1280, height: 900 });
    await page.goto(`${collector.url}/?range=7d`, { waitUntil: 'load' });
    await panelsDrawn(page);
    step('dashboard.png');
    await page.screenshot({ path: join(root, 'docs/dashboard.png') });
    await page.screenshot({ path: join(root, 'docs/dashboard-full.png'), fullPage: true });
    // The country with the fewest people that still shows: most of its comparison groups are hidden.
    step('dashboard-hidden.png');
    const map = (await (
      await fetch(`${collector.url}/v1/map?from=${Date.now() - 7 * 86_400_000}&to=${Date.now()}`)
    ).json()) as {
      cells: { key: { country: string }; suppressed?: boolean; records?: number }[];
    };
    const small = map.cells
      .filter((c) => !c.suppressed && c.key.country !== 'ZZ')
      .sort((a, b) => a.records! - b.records!)[0]!.key.country;
    await page.goto(`${collector.url}/?range=7d&country=${small}`, { waitUntil: 'load' });
    await page.waitForFunction(
      () => (document.getElementById('compare') as HTMLElement | null)?.dataset.state !== 'loading',
      POLL,
    );
    await new Promise((r) => setTimeout(r, 1_500));
    await (await page.$('#compare'))!.screenshot({ path: join(root, 'docs/dashboard-hidden.png') });
    await page.goto(`${collector.url}/?range=7d`, { waitUntil: 'load' });
    await page.type('input[name=token]', collector.tokens['app.example.io']!);
    await page.click('#apply-token');
    await page
      .waitForFunction(() => document.getElementById('scope')!.textContent!.startsWith('Site app.example.io'), POLL)
      .catch(async (err: Error) => {
        const seen = await page.evaluate(() => [
          document.getElementById('scope')!.textContent,
          document.getElementById('notice')!.textContent,
          location.href,
        ]);
        throw new Error(`${err.message}; the page shows ${JSON.stringify(seen)}`);
      });
    await panelsDrawn(page);
    await page.screenshot({ path: join(root, 'docs/dashboard-site.png') });
    // The first screen of the same view opened afresh: on the site's own visitors (its beacon's records).
    await page.reload({ waitUntil: 'load' });
    await page.waitForFunction(() => new URL(location.href).searchParams.get('source') === 'page', POLL);
    await panelsDrawn(page);
    step('beacon-site-view.png');
    await page.screenshot({ path: join(root, 'docs/beacon-site-view.png') });
    // The same site's own synthetic runs (sent with its token): shown without the people rule, labelled.
    step('dashboard-own-runs.png');
    await page.goto(`${collector.url}/?range=7d&site=app.example.io&source=synthetic`, { waitUntil: 'load' });
    await page.waitForFunction(() => document.getElementById('scope')!.textContent!.includes('your own'), POLL);
    await panelsDrawn(page);
    await page.screenshot({ path: join(root, 'docs/dashboard-own-runs.png') });
    // The Cryptography panel, every site together (a fresh context: no read token).
    step('cryptography panel');
    const ctx = await b.browser.createBrowserContext();
    const all = await ctx.newPage();
    await all.setViewport({ width: 1280, height: 900 });
    await all.goto(`${collector.url}/?range=7d`, { waitUntil: 'load' });
    await all.waitForFunction(
      () => (document.getElementById('crypto') as HTMLElement | null)?.dataset.state === 'ready',
      POLL,
    );
    await new Promise((r) => setTimeout(r, 1_500));
    await (await all.$('#crypto'))!.screenshot({ path: join(root, 'docs/dashboard-crypto.png') });
    await ctx.close();
    // A collector with nothing recorded: the dashboard says how to start (the embedded store opens one data
    // directory per process, so the demo collector closes first).
    step('dashboard-empty.png');
    await collector.app.close();
    const emptyWork = mkdtempSync(join(tmpdir(), 'tlsrum-screenshots-empty-'));
    const empty = await buildApp(
      loadConfig({
        DATA_DIR: join(emptyWork, 'data'),
        DASHBOARD_DIR: join(work, 'dashboard'),
        LOG_LEVEL: 'silent',
        MAX_EVENT_LOOP_DELAY_MS: '0',
        PROBE_INTERVAL_MS: '0',
        // Every answer fresh: records are stored and asked about again at once.
        ANSWER_CACHE_SECONDS: '0',
      }),
    );
    try {
      await empty.storeStatus.whenReady;
      await empty.listen({ host: '127.0.0.1', port: 0 });
      const blank = await b.browser.newPage();
      await blank.setViewport({ width: 1280, height: 600 });
      await blank.goto(`http://127.0.0.1:${(empty.server.address() as { port: number }).port}/`, { waitUntil: 'load' });
      await blank.waitForFunction(() => document.querySelector('#verdict .start') !== null, POLL);
      await blank.screenshot({ path: join(root, 'docs/dashboard-empty.png') });
      await blank.close();
    } finally {
      await empty.close();
      rmSync(emptyWork, { recursive: true, force: true });
    }
    console.log(`screenshots: ${shots}/ and docs/dashboard*.png`);
  } finally {
    await b.close().catch(() => undefined);
    await nginx.stop().catch(() => undefined);
    await collector.app.close().catch(() => undefined);
    lab.remove();
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error('screenshots failed:', err);
  process.exit(1);
});
