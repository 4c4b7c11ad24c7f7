/**
 * "Add your site" in a real browser against a real collector and a site owner's HTTPS server (a lab
 * certificate, reached through the PROBE_CONNECT_TO allow-list): a refused name shows its reason, a first
 * check shows why the proof was not found, the published challenge registers the site and shows the token
 * once with the beacon tag and the Server-Timing lines, and the link opens the site's own view with that
 * token. No page error and no CSP violation on the way.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { labCert } from '../../scripts/lab-cert';
import { dashboardCollector, launchChromium, type TestCollector } from './support/collector';

const SITE = 'shop.example.org';
const WAIT = { polling: 100, timeout: 60_000 };

let work: string;
let site: Server;
let published: string | null = null;
let app: TestCollector;
let browser: Browser;
let base: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'tlsrum-add-site-'));
  const { cert, key, ca } = labCert(work, SITE);
  site = createServer({ cert, key }, (req, res) => {
    if (req.url === '/.well-known/tlsrum.txt' && published) return res.writeHead(200).end(`${published}\n`);
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  app = await dashboardCollector(work, {
    ALERT_INTERVAL_MS: '0',
    PROBE_CONNECT_TO: `${SITE}:443:127.0.0.1:${(site.address() as { port: number }).port}`,
    PROBE_CA_FILE: ca,
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
  site?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('Add your site', () => {
  it('walks a site owner from claim to their own view, with plain reasons on the way', async () => {
    const page = await browser.newPage();
    // The page glides to the last step; a click during the glide can land beside the link. A reader who asks
    // for less motion gets the step at once, and so does this test.
    await page.emulateMediaFeatures([{ name: 'prefers-reduced-motion', value: 'reduce' }]);
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(String(e)));
    page.on('console', (m) => m.type() === 'error' && !/status of 4\d\d/.test(m.text()) && problems.push(m.text()));

    await page.goto(`${base}/`, { waitUntil: 'load' });
    // The page's module script runs after parsing: wait for the whole load before using the form.
    await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('a.add-site-link')]);
    expect(new URL(page.url()).pathname).toBe('/add-site.html');

    await page.type('#hostname', 'https://shop.example.org/');
    await page.click('#claim-form button');
    await page.waitForFunction(() => !document.getElementById('claim-error')!.hidden, WAIT);
    expect(await page.$eval('#claim-error', (e) => e.textContent)).toMatch(/^Give the hostname only .*not a URL/);

    await page.$eval('#hostname', (e) => ((e as HTMLInputElement).value = ''));
    await page.type('#hostname', SITE);
    await page.click('#claim-form button');
    await page.waitForFunction(() => !document.getElementById('prove-body')!.hidden, WAIT);
    const shown = await page.evaluate(() => ({
      file: document.getElementById('challenge-file')!.textContent,
      dns: document.getElementById('challenge-dns')!.textContent,
      url: document.getElementById('well-known-url')!.textContent,
      name: document.getElementById('dns-name')!.textContent,
    }));
    expect(shown.file).toMatch(/^tlsrum-site-verification=/);
    expect(shown).toEqual({
      file: shown.file,
      dns: shown.file,
      url: `https://${SITE}/.well-known/tlsrum.txt`,
      name: `_tlsrum.${SITE}`,
    });

    await page.click('#verify');
    await page.waitForFunction(() => !document.getElementById('verify-error')!.hidden, WAIT);
    expect(await page.$eval('#verify-error', (e) => e.textContent)).toMatch(
      /^Not proven yet\. .*was not found \(404\)/,
    );
    expect(await page.$eval('#measure-body', (e) => (e as HTMLElement).hidden)).toBe(true);

    published = shown.file;
    await page.click('#verify');
    await page.waitForFunction(() => !document.getElementById('measure-body')!.hidden, WAIT);
    const done = await page.evaluate(() => ({
      token: document.getElementById('token')!.textContent,
      warning: document.querySelector('.warning')!.textContent,
      beacon: document.getElementById('beacon-tag')!.textContent,
      nginx: document.getElementById('st-nginx')!.textContent,
      link: (document.getElementById('open-site') as HTMLAnchorElement).href,
      error: (document.getElementById('verify-error') as HTMLElement).hidden,
    }));
    expect(done.token).toMatch(/^tlsrum_rt_/);
    expect(done.warning).toMatch(/Save this token now: it is shown only this once/);
    expect(done.beacon).toBe(`<script async src="${base}/beacon.js" data-site="${SITE}"></script>`);
    // The tag names a script the collector serves, loadable from the site's own pages.
    const script = await app.inject({ url: '/beacon.js' });
    expect([script.statusCode, script.headers['content-type'], script.headers['cross-origin-resource-policy']]).toEqual(
      [200, 'text/javascript; charset=utf-8', 'cross-origin'],
    );
    expect(done.nginx).toBe(`add_header Server-Timing 'tls;desc="$ssl_protocol $ssl_session_reused"' always;`);
    expect(done.error).toBe(true);
    expect((await app.inject({ url: '/v1/sites' })).json().sites).toContain(SITE);

    await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('#open-site')]);
    await page.waitForFunction(
      (s: string) => document.getElementById('scope')?.textContent === `Site ${s}`,
      WAIT,
      SITE,
    );
    expect(await page.$eval('#notice', (e) => (e as HTMLElement).hidden)).toBe(true);
    expect(problems).toEqual([]);
    await page.close();
  }, 120_000);
});
