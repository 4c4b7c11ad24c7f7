/**
 * Swagger UI at /docs in a real browser (puppeteer-core + Debian's Chromium) under the collector's own
 * security headers: it lists the API's operations, and the page reports no Content-Security-Policy
 * violation (helmet's CSP applies to /docs as to everything else; see src/platform/http/security-headers.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import puppeteer, { type Browser } from 'puppeteer-core';
import { removeDir, startApp, type TestApp } from '../support/helpers';

let t: TestApp;
let browser: Browser;
let base: string;

beforeAll(async () => {
  t = await startApp();
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
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
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
  if (t) removeDir(t.dataDir);
});

describe('/docs in a browser', () => {
  it('lists the operations of the API without a CSP violation', async () => {
    const page = await browser.newPage();
    // Both ways a browser reports a blocked script, style, image or font: the DOM event and the console.
    // (Page code as text: the collector's TypeScript has no DOM types.)
    await page.evaluateOnNewDocument(`
      window.cspViolations = [];
      document.addEventListener('securitypolicyviolation', (e) => window.cspViolations.push(e.violatedDirective + ' ' + e.blockedURI));`);
    const consoleErrors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
    page.on('pageerror', (e) => consoleErrors.push(String(e)));

    const res = await page.goto(`${base}/docs`, { waitUntil: 'load' });
    expect(res?.status()).toBe(200);
    expect(res?.headers()['content-security-policy']).toContain("script-src 'self'");
    await page.waitForSelector('.opblock-summary-path', { timeout: 30_000 });
    const operations = await page.$$eval('.opblock', (blocks) =>
      blocks.map(
        (b) =>
          `${b.querySelector('.opblock-summary-method')?.textContent} ${b.querySelector('.opblock-summary-path')?.getAttribute('data-path')}`,
      ),
    );
    for (const op of ['POST /v1/handshakes', 'GET /v1/compare', 'GET /v1/whatif', 'GET /v1/alerts', 'POST /v1/sites'])
      expect(operations).toContain(op);
    expect(await page.$eval('.info .title', (h) => h.textContent)).toContain('tlsrum collector');

    expect(await page.evaluate('window.cspViolations')).toEqual([]);
    // A blocked load also logs "Refused to …" here; any other console error is a broken page too.
    expect(consoleErrors).toEqual([]);
    await page.close();
  });
});
