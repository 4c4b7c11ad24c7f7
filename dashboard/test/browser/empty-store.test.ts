/**
 * The dashboard of a collector with nothing recorded, in a real browser against a real collector on an
 * empty embedded store: it shows the three ways to start, not "no data for these filters" nine times.
 * Its own file: the embedded store opens one data directory per process.
 * Screenshot: test-artifacts/dashboard/dashboard-empty.png.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'puppeteer-core';
import { dashboardCollector, launchChromium, type TestCollector } from './support/collector';

const artifacts = fileURLToPath(new URL('../../../test-artifacts/dashboard/', import.meta.url));

let work: string;
let app: TestCollector;
let browser: Browser;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'tlsrum-dashboard-empty-'));
  app = await dashboardCollector(work);
  await app.listen({ host: '127.0.0.1', port: 0 });
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('dashboard: an empty store', () => {
  it('says the three ways to start, not "no data for these filters"', async () => {
    const p = await browser.newPage();
    await p.setViewport({ width: 1280, height: 900 });
    await p.goto(`http://127.0.0.1:${(app.server.address() as { port: number }).port}/`);
    await p.waitForFunction(
      () => ((window as unknown as { tlsrumDashboard?: { renders: number } }).tlsrumDashboard?.renders ?? 0) >= 1,
      { timeout: 60_000 },
    );
    expect(await p.$eval('#verdict h2', (h) => h.textContent)).toBe('Getting started');
    const steps = await p.$$eval('#verdict .start li', (li) => li.map((l) => l.textContent!));
    expect(steps).toHaveLength(3);
    expect(steps[0]).toContain('Add your site');
    expect(steps[1]).toMatch(/beacon.*extension/);
    expect(steps[2]).toContain('pnpm demo');
    expect(await p.$eval('#verdict .start a', (a) => (a as HTMLAnchorElement).pathname)).toBe('/add-site.html');
    // Nothing else on the page: no panel saying "No data for these filters".
    const visible = await p.$$eval('section.panel', (ss) =>
      ss.filter((s) => (s as HTMLElement).offsetParent !== null).map((s) => s.id),
    );
    expect(visible).toEqual(['verdict']);
    expect(await p.evaluate(() => document.body.innerText)).not.toContain('No data for these filters');
    mkdirSync(artifacts, { recursive: true });
    await p.screenshot({ path: join(artifacts, 'dashboard-empty.png') });
    await p.close();
  });
});
