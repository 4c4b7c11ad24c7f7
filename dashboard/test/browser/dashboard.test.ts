/**
 * The dashboard in a real browser (puppeteer-core + Debian's Chromium) against a real collector on an
 * embedded store holding generated demo data: every chart renders series with data, a filter change
 * goes into the URL and the charts follow, empty and error states show, the layout fits a phone.
 * Screenshots go to test-artifacts/dashboard/.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'puppeteer-core';
import { newReadToken } from '@tlsrum/collector/auth';
import { generateDemoData } from '@tlsrum/collector/demo';
import { builtDashboard, dashboardCollector, launchChromium, type TestCollector } from './support/collector';
import { COMPILE_HINT } from '../../scripts/compile-hint';

const artifacts = fileURLToPath(new URL('../../../test-artifacts/dashboard/', import.meta.url));
const PANELS = ['verdict', 'compare', 'map', 'trends', 'shares', 'phases', 'crypto', 'whatif', 'alerts', 'config'];
/** Per-site panels: alerts and the probed configuration (without a site and token they are empty). */
const PER_SITE = ['alerts', 'config'];
/** Panel states when every data panel is `state`. */
const states = (state: string, alerts = state === 'error' ? 'error' : 'empty') =>
  Object.fromEntries(PANELS.map((p) => [p, PER_SITE.includes(p) ? alerts : state]));

let work: string;
let outDir: string;
let app: TestCollector;
let browser: Browser;
let page: Page;
let base: string;

type Hook = { renders: number; charts: Map<string, { getOption(): { series?: { data?: unknown[] }[] } }[]> };

/** Per panel, per chart: the number of data points in each series. */
function seriesSizes(p: Page) {
  return p.evaluate(() => {
    const hook = (window as unknown as { tlsrumDashboard: Hook }).tlsrumDashboard;
    return Object.fromEntries(
      [...hook.charts].map(([id, charts]) => [
        id,
        charts.map((c) => (c.getOption().series ?? []).map((s) => s.data?.length ?? 0)),
      ]),
    );
  });
}

async function waitForRenders(p: Page, n: number) {
  await p.waitForFunction(
    (k: number) => ((window as unknown as { tlsrumDashboard?: Hook }).tlsrumDashboard?.renders ?? 0) >= k,
    { timeout: 60_000 },
    n,
  );
}

/** With a site's read token every panel is ready; its alerts once evaluated, its configuration once probed (empty before). */
async function expectReadyWithToken(p: Page) {
  const st = await panelStates(p);
  expect({ ...st, alerts: '', config: '' }).toEqual({ ...states('ready'), alerts: '', config: '' });
  expect(['ready', 'empty']).toContain(st.alerts);
  expect(['ready', 'empty']).toContain(st.config);
}

/** What the page says on <body> of its panels: `data-panels` (loading / settled) and `data-failed-panels`. */
const settled = (p: Page) =>
  p.evaluate(() => ({ panels: document.body.dataset.panels, failedPanels: document.body.dataset.failedPanels }));

const panelStates = (p: Page) =>
  p.$$eval('section.panel', (els) => Object.fromEntries(els.map((e) => [e.id, (e as HTMLElement).dataset.state])));

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'tlsrum-dashboard-'));
  outDir = builtDashboard();
  app = await dashboardCollector(work, {
    MIN_CLIENTS_PER_CELL: '5',
    // One public figure per crypto value needs records of two registered sites (k-sites rule, tested in the
    // collector); the demo's sites each have their own certificate, so this test reads them one site at a time.
    MIN_SITES_PER_CELL: '1',
  });
  await generateDemoData(app.store.ingest, { records: 40_000, days: 30, seed: 3 });
  await app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  mkdirSync(artifacts, { recursive: true });
  browser = await launchChromium();
  page = await browser.newPage();
  await page.setViewport({ width: 1440, height: 1000 });
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('dashboard', () => {
  it('renders every chart with data on demo data', async () => {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`${base}/?range=30d`);
    await waitForRenders(page, 1);
    expect(await panelStates(page)).toEqual(states('ready'));
    // The page says every panel has settled, none failed (what bench:dashboard waits for).
    expect(await settled(page)).toEqual({ panels: 'settled', failedPanels: '0' });
    const sizes = await seriesSizes(page);
    expect(Object.keys(sizes).sort()).toEqual([...PANELS].sort());
    for (const [id, charts] of Object.entries(sizes)) {
      for (const series of charts) {
        expect(series.length, id).toBeGreaterThan(0);
        for (const n of series) expect(n, id).toBeGreaterThan(0);
      }
    }
    // TLS 1.2 full / resumed, TLS 1.3 and h3 × full / resumed / 0-RTT (TLS 1.2 has no 0-RTT); dozens of countries.
    expect(sizes.compare![0]![0]).toBe(8);
    // 30 days read the rollup, which counts distinct clients up to 100: a capped count reads "≥ 100".
    expect(await page.$eval('#compare tbody', (t) => t.textContent)).toContain('≥ 100');
    expect(sizes.map![0]![0]).toBeGreaterThanOrEqual(30);
    // Protocol and mode shares: each day's stack reaches 100 %, values left out (too few people) drawn as "not shown".
    const shares = await page.evaluate(() => {
      const hook = (
        window as unknown as {
          tlsrumDashboard: {
            charts: Map<string, { getOption(): { series: { name: string; data: [number, number][] }[] } }[]>;
          };
        }
      ).tlsrumDashboard;
      return hook.charts.get('shares')!.map((c) => c.getOption().series.map((s) => [s.name, s.data] as const));
    });
    for (const series of shares) {
      expect(series.at(-1)![0]).toBe('not shown');
      const days = series[0]![1].length;
      for (let i = 0; i < days; i++) {
        const total = series.reduce((sum, [, data]) => sum + data[i]![1], 0);
        expect(total).toBeCloseTo(1, 2);
      }
    }
    // Every panel's data can be downloaded; the map has its table.
    expect(
      await page.$$eval('section.panel:not(#alerts):not(#config) .csv', (bs) =>
        bs.every((b) => !(b as HTMLButtonElement).disabled),
      ),
    ).toBe(true);
    // What-if: the scenarios that save time ranked by p75 saving (none with 0 saved), the accounting
    // table named after the range, and the stated assumptions.
    const ranked = sizes.whatif![0]![0]!;
    expect(ranked).toBeGreaterThanOrEqual(3);
    expect(sizes.whatif![0]).toEqual([ranked, ranked]);
    const [p75, p50] = await page.evaluate(() => {
      const hook = (
        window as unknown as {
          tlsrumDashboard: { charts: Map<string, { getOption(): { series: { data: number[] }[] } }[]> };
        }
      ).tlsrumDashboard;
      return hook.charts
        .get('whatif')![0]!
        .getOption()
        .series.map((s) => s.data);
    });
    for (let i = 0; i < ranked; i++) expect(p75![i]! > 0 || p50![i]! > 0, `scenario ${i}`).toBe(true);
    expect(await page.$$eval('#whatif tbody tr', (rows) => rows.length)).toBe(5 + ranked);
    expect(await page.$eval('#whatif caption', (c) => c.textContent)).toMatch(/^Last 30 days, all sites: /);
    expect(await page.$$eval('#whatif details li', (li) => li.length)).toBeGreaterThanOrEqual(9);
    // Guides are links, and they open.
    // Guides are rendered pages written for site owners, not Markdown source.
    const guide = await page.$eval('#alerts .desc a', (a) => (a as HTMLAnchorElement).href);
    expect(guide).toMatch(/\/guide\/alerts\.html$/);
    const guidePage = await fetch(guide);
    expect(guidePage.headers.get('content-type')).toContain('text/html');
    const html = await guidePage.text();
    expect(html).toContain('<h1');
    expect(html).not.toMatch(/src\/|\.ts\b|^#/m);
    expect(await page.$eval('#alerts .status', (s) => s.textContent)).toContain('read token');
    expect(await page.$$eval('#map tbody tr', (rows) => rows.length)).toBeGreaterThanOrEqual(30);
    // A share the collector left out says so, and the row's hover text says why, instead of a bare dash.
    const mapRows = await page.$$eval('#map tbody tr', (rows) =>
      rows.map((r) => ({
        shares: Array.from(r.querySelectorAll('td'))
          .slice(2)
          .map((td) => td.textContent),
        title: r.getAttribute('title') ?? '',
      })),
    );
    expect(mapRows.flatMap((r) => r.shares)).not.toContain('—');
    for (const r of mapRows.filter((x) => x.shares.includes('not shown')))
      expect(r.title).toContain('not shown: that share would single out');
    // A share is left out only when a group of too few people would follow from it: most countries show all three.
    const whole = mapRows.filter((r) => r.shares.every((v) => /^\d+(\.\d+)? ?%$/.test(v ?? '')));
    expect(whole.length).toBeGreaterThan(mapRows.length / 2);
    await page.screenshot({ path: join(artifacts, 'dashboard-30d.png'), fullPage: true });
    expect(errors).toEqual([]);
  });

  it("says the verdict first: one sentence whose figures are the API's, three figures, how sure, the evidence once", async () => {
    const asked: string[] = [];
    const onRequest = (r: { url(): string }) => asked.push(r.url());
    page.on('request', onRequest);
    await page.goto(`${base}/?range=30d`);
    await waitForRenders(page, 1);
    page.off('request', onRequest);
    expect(await page.$$eval('section.panel', (ss) => ss.map((s) => s.id).slice(0, 3))).toEqual([
      'verdict',
      'compare',
      'map',
    ]);
    // The same figures, read from the API with the exact request the page made.
    const stackUrl = asked.find(
      (u) => new URL(u).pathname === '/v1/compare' && new URL(u).searchParams.get('dimensions') === 'stack',
    )!;
    const modeUrl = asked.find(
      (u) => new URL(u).pathname === '/v1/compare' && new URL(u).searchParams.get('dimensions') === 'stack,mode',
    )!;
    const mapUrl = asked.find((u) => new URL(u).pathname === '/v1/map')!;
    type A = {
      cells: {
        key: Record<string, string>;
        suppressed?: boolean;
        records?: number;
        fewClients?: boolean;
        connect?: { p75: number };
      }[];
    };
    const [stacks, modes, countries] = (await Promise.all(
      [stackUrl, modeUrl, mapUrl].map(async (u) => (await fetch(u)).json()),
    )) as A[];
    const p75 = (stack: string) => stacks!.cells.find((c) => c.key.stack === stack && !c.suppressed)!.connect!.p75;
    const tls13 = Math.round(p75('TLS 1.2') - p75('TLS 1.3'));
    const h3 = Math.round(p75('TLS 1.3') - p75('h3'));
    const known = modes!.cells.filter((c) => !c.suppressed && c.key.mode !== 'unknown');
    const total = known.reduce((s, c) => s + c.records!, 0);
    const resumed = known.filter((c) => c.key.mode !== 'full').reduce((s, c) => s + c.records!, 0);
    const slowest = countries!.cells
      .filter((c) => !c.suppressed && !c.fewClients && c.key.country !== 'ZZ')
      .sort((a, b) => b.connect!.p75 - a.connect!.p75)[0]!;
    const sentence = await page.$eval('#verdict .sentence', (p) => p.textContent!);
    expect(tls13).toBeGreaterThan(0);
    expect(sentence).toContain(
      `For visitors of every site together, TLS 1.3 connects ${tls13} ms sooner than TLS 1.2 at the 75th percentile`,
    );
    expect(sentence).toContain(h3 >= 0 ? `HTTP/3 saves ${h3} ms more` : `HTTP/3 is ${-h3} ms slower`);
    expect(sentence).toContain(`resumption works for ${Math.round((resumed / total) * 100)} % of connections`);
    expect(sentence).toMatch(new RegExp(`slowest region: [^,]+, ${Math.round(slowest.connect!.p75)} ms\\.$`));
    // Three figures a person can repeat; how sure in plain words; the detail one click away.
    expect(await page.$$eval('#verdict .figure strong', (s) => s.map((e) => e.textContent))).toEqual([
      `${tls13} ms sooner`,
      h3 >= 0 ? `${h3} ms sooner` : `${-h3} ms later`,
      `${Math.round((resumed / total) * 100)} %`,
    ]);
    const evidence = await page.$eval('#verdict .evidence', (p) => p.textContent!);
    expect(evidence).toMatch(/^How sure: (solid|tentative)\./);
    const measured = /The TLS version was measured for (\d+) % of these connections/.exec(evidence);
    expect(Number(measured![1])).toBeGreaterThan(0);
    expect(Number(measured![1])).toBeLessThan(100);
    expect(await page.$eval('#verdict details', (d) => (d as HTMLDetailsElement).open)).toBe(false);
    expect(await page.$$eval('#verdict details tbody tr', (r) => r.length)).toBe(3);
    // The evidence line once per page, not once per panel; the comparison's full table one click down.
    expect(await page.evaluate(() => document.body.innerText.split('The TLS version was measured').length - 1)).toBe(1);
    expect(await page.$eval('#compare details', (d) => (d as HTMLDetailsElement).open)).toBe(false);
    expect(await page.$eval('#compare details tbody', (t) => t.textContent)).toContain('ms');
    await page.screenshot({ path: join(artifacts, 'dashboard-verdict.png') });

    // Only measured records: the verdict says 100 % measured.
    await page.select('select[name=evidence]', 'measured');
    await waitForRenders(page, 2);
    expect(new URL(page.url()).searchParams.get('evidence')).toBe('measured');
    expect(await page.$eval('#verdict .evidence', (p) => p.textContent!)).toContain(
      'measured for 100 % of these connections',
    );
    expect(await panelStates(page)).toEqual(states('ready'));
    // Back to the view the next test starts from.
    await page.goto(`${base}/?range=30d`);
    await waitForRenders(page, 1);
  });

  it('Cryptography panel: TLS time per group, certificate key, chain and cipher, the post-quantum share, coverage; a plain line per chart, precise detail one click away', async () => {
    await page.goto(`${base}/?range=7d`);
    await waitForRenders(page, 1);
    expect((await panelStates(page)).crypto).toBe('ready');
    const charts = (await seriesSizes(page)).crypto!;
    expect(charts).toHaveLength(6);
    const keys = await page.evaluate(() => {
      const hook = (
        window as unknown as {
          tlsrumDashboard: {
            charts: Map<
              string,
              {
                getOption(): {
                  xAxis: { data?: string[] }[];
                  yAxis: { data?: string[] }[];
                  series: { name: string; data: unknown[] }[];
                };
              }[]
            >;
          };
        }
      ).tlsrumDashboard;
      const c = hook.charts.get('crypto')!;
      return {
        split: c.slice(0, 4).map((x) => x.getOption().xAxis[0]!.data),
        pq: c[4]!.getOption().series[0]!.data as [number, number][],
        coverage: {
          browsers: c[5]!.getOption().yAxis[0]!.data,
          series: c[5]!.getOption().series.map((s) => [s.name, s.data]),
        },
      };
    });
    // The demo's sites: ECDSA P-256 / P-384 and RSA-2048 / RSA-4096 leaves, chains of 2 and 3, hybrid and classical groups.
    expect([...keys.split[0]!].sort()).toEqual(['X25519', 'X25519MLKEM768']);
    expect([...keys.split[1]!].sort()).toEqual(['ECDSA-P256', 'ECDSA-P384', 'RSA-2048', 'RSA-4096']);
    expect([...keys.split[2]!].sort()).toEqual(['2', '3']);
    expect(keys.split[3]!.length).toBeGreaterThanOrEqual(3);
    for (const series of charts.slice(0, 4)) expect(series).toHaveLength(2); // p50 and p75
    // A share per day of the 7-day range, strictly between none and all.
    expect(keys.pq.length).toBeGreaterThanOrEqual(7);
    for (const [, share] of keys.pq) expect(share > 0 && share < 1).toBe(true);
    // Coverage: Chromium-family browsers know only a registered site's probe
    const share = (name: string, browser: string) =>
      (keys.coverage.series.find(([n]) => n === name)![1] as number[])[keys.coverage.browsers!.indexOf(browser)]!;
    // (the extension in Firefox observes everything; a site's beacon, in any browser, only what the probe says).
    expect(share('observed by the browser', 'firefox')).toBeGreaterThan(0.5);
    expect(share("from the site's probe", 'firefox')).toBeGreaterThan(0);
    expect(share("from the site's probe", 'chrome')).toBeGreaterThan(0.5);
    expect(share('not known', 'chrome')).toBeGreaterThan(0);
    // One plain line per chart, the precise definition behind a click.
    expect(await page.$$eval('#crypto .chart-caption > p', (ps) => ps.map((p) => p.textContent!.length))).toHaveLength(
      6,
    );
    expect(await page.$$eval('#crypto .chart-caption details[open]', (d) => d.length)).toBe(0);
    await page.click('#crypto .chart-caption details summary');
    expect(await page.$eval('#crypto .chart-caption details', (d) => (d as HTMLDetailsElement).open)).toBe(true);
    expect(await page.$eval('#crypto .chart-caption details p', (p) => p.textContent)).toContain('X25519MLKEM768');
    expect(await page.$eval('#crypto .csv', (b) => (b as HTMLButtonElement).disabled)).toBe(false);
    expect(await page.$eval('#crypto tbody', (t) => t.textContent)).toContain('Certificate key: RSA-4096');
    // The post-quantum filter narrows every panel, the Cryptography panel's group chart to the hybrid group.
    await page.select('select[name=pq]', 'hybrid');
    await waitForRenders(page, 2);
    expect(new URL(page.url()).searchParams.get('pq')).toBe('hybrid');
    const groups = await page.evaluate(() => {
      const hook = (
        window as unknown as {
          tlsrumDashboard: { charts: Map<string, { getOption(): { xAxis: { data?: string[] }[] } }[]> };
        }
      ).tlsrumDashboard;
      return hook.charts.get('crypto')![0]!.getOption().xAxis[0]!.data;
    });
    expect(groups).toEqual(['X25519MLKEM768']);
    const crypto = await page.$('#crypto');
    await page.select('select[name=pq]', '');
    await waitForRenders(page, 3);
    await crypto!.screenshot({ path: join(artifacts, 'crypto-panel.png') });
    // The next test starts where the first left the page.
    await page.goto(`${base}/?range=30d`);
    await waitForRenders(page, 1);
  });

  it('loads the world map data on its own, not with the other panels', async () => {
    const assets = readdirSync(join(outDir, 'assets')).filter((f) => f.endsWith('.js'));
    const entry = readFileSync(join(outDir, 'index.html'), 'utf8').match(/src="\.\/assets\/([^"]+\.js)"/)![1]!;
    // world-atlas is TopoJSON: the chunk holding it has `type: "Topology"` (quoted however the minifier likes).
    const world = assets.filter((f) => /["'`]Topology["'`]/.test(readFileSync(join(outDir, 'assets', f), 'utf8')));
    expect(world).toHaveLength(1);
    expect(world[0]).not.toBe(entry);
    // ...and the page fetched it (the map rendered in the test above).
    expect(await page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name))).toContainEqual(
      expect.stringContaining(world[0]!),
    );
  });

  it("opens every script with V8's compile hint, in the file and in the compressed copies the collector sends", () => {
    const scripts = readdirSync(join(outDir, 'assets')).filter((f) => f.endsWith('.js'));
    expect(scripts.length).toBeGreaterThanOrEqual(4);
    for (const f of scripts) {
      const path = join(outDir, 'assets', f);
      // The first line, before any code: where V8 looks for it.
      for (const text of [
        readFileSync(path),
        brotliDecompressSync(readFileSync(`${path}.br`)),
        gunzipSync(readFileSync(`${path}.gz`)),
      ])
        expect(text.toString('utf8').split('\n', 1)[0], f).toBe(COMPILE_HINT);
    }
  });

  it('puts a filter change into the URL and redraws every chart for it', async () => {
    const before = await page.$eval('#compare tbody', (t) => t.textContent);
    const requests: string[] = [];
    const onRequest = (r: { url(): string }) => requests.push(r.url());
    page.on('request', onRequest);
    await page.select('select[name=browser]', 'firefox');
    await waitForRenders(page, 2);
    page.off('request', onRequest);
    expect(new URL(page.url()).searchParams.get('browser')).toBe('firefox');
    expect(new URL(page.url()).searchParams.get('range')).toBe('30d');
    const api = requests.filter((u) => u.includes('/v1/') && !u.includes('/v1/sites'));
    // Each answer asked once however many panels draw it: the comparison (stack × mode, and by stack for the
    // verdict), the map (all protocols and per protocol), trends, shares, phases, the Cryptography panel's six,
    // the what-if and the evidence line (by evidence and by record source); alerts need a site and a token.
    expect(api.length).toBe(16);
    expect(new Set(api).size).toBe(api.length);
    for (const u of api) expect(new URL(u).searchParams.get('browser')).toBe('firefox');
    expect(await panelStates(page)).toEqual(states('ready'));
    expect(await page.$eval('#compare tbody', (t) => t.textContent)).not.toBe(before);
    await page.screenshot({ path: join(artifacts, 'dashboard-firefox.png'), fullPage: true });

    // The URL alone restores the view (shared links).
    await page.goto(`${base}/?range=30d&browser=firefox&metric=connect`);
    await waitForRenders(page, 1);
    expect(await page.$eval('select[name=browser]', (s) => (s as HTMLSelectElement).value)).toBe('firefox');
    expect(await page.$eval('select[name=metric]', (s) => (s as HTMLSelectElement).value)).toBe('connect');
  });

  it('shows empty and error states; hidden groups say how many and why', async () => {
    await page.goto(`${base}/?range=30d&browser=safari`);
    await waitForRenders(page, 1);
    expect(await panelStates(page)).toEqual(states('empty'));
    // A country with few people: the comparison's groups there are mostly too small, and the panel says how many.
    const map = (await (
      await fetch(`${base}/v1/map?from=${Date.now() - 30 * 86_400_000}&to=${Date.now()}`)
    ).json()) as {
      cells: { key: { country: string }; suppressed?: boolean; records?: number }[];
    };
    const small = map.cells
      .filter((c) => !c.suppressed && c.key.country !== 'ZZ')
      .sort((a, b) => a.records! - b.records!)[0]!.key.country;
    const asked: string[] = [];
    const onRequest = (r: { url(): string }) => asked.push(r.url());
    page.on('request', onRequest);
    await page.goto(`${base}/?range=30d&country=${small}`);
    await waitForRenders(page, 1);
    page.off('request', onRequest);
    const compareUrl = asked.find((u) => new URL(u).searchParams.get('dimensions') === 'stack,mode')!;
    const answer = (await (await fetch(compareUrl)).json()) as {
      minClients: number;
      cells: { suppressed?: boolean }[];
    };
    const hidden = answer.cells.filter((c) => c.suppressed).length;
    expect(hidden).toBeGreaterThan(0);
    expect(answer.minClients).toBe(5);
    expect(await page.$eval('#compare .status', (s) => s.textContent)).toBe(
      `${hidden} ${hidden === 1 ? 'group' : 'groups'} hidden: fewer than 5 people each (too few to show safely).`,
    );
    await page.screenshot({ path: join(artifacts, 'dashboard-hidden.png'), fullPage: true });
    // A country of too few people for any figure (3 records, at most 3 people): the what-if says its figures
    // are held back, not that there is no data.
    await generateDemoData(app.store.ingest, {
      records: 3,
      days: 30,
      seed: 11,
      countries: [{ code: 'IS', weight: 1, rttMs: 40, h3: 0.3 }],
    });
    await page.goto(`${base}/?range=30d&country=IS`);
    await waitForRenders(page, 1);
    expect(await page.$eval('#whatif .status', (s) => s.textContent)).toBe(
      'Hidden: too few people behind these figures to show them safely.',
    );
    await (await page.$('#whatif'))!.screenshot({ path: join(artifacts, 'whatif-hidden.png') });
    // One site's data without its read token: said once, above the panels (hidden), nothing asked.
    await page.goto(`${base}/?range=30d&site=shop.example.com`);
    await waitForRenders(page, 1);
    expect(await page.$eval('#notice', (n) => [(n as HTMLElement).hidden, n.textContent])).toEqual([
      false,
      expect.stringContaining("needs that site's read token"),
    ]);
    expect(await page.$eval('#panels', (p) => (p as HTMLElement).hidden)).toBe(true);
    expect(await page.evaluate(() => document.body.innerText.split('read token').length - 1)).toBeLessThanOrEqual(2);
  });

  it("a panel whose query fails tries once more by itself, then offers Retry; the map's own script is fetched again", async () => {
    const p = await browser.newPage();
    await p.setViewport({ width: 1440, height: 1000 });
    // Fail the map's query `failures` times (the collector answering 503 busy), and its lazy chunk once.
    let failures = 1;
    let chunkFailures = 1;
    await p.setRequestInterception(true);
    p.on('request', (r) => {
      const url = r.url();
      if (url.includes('/v1/map') && failures > 0) {
        failures--;
        return void r.respond({
          status: 503,
          headers: { 'retry-after': '1' },
          contentType: 'application/json',
          body: JSON.stringify({
            statusCode: 503,
            error: 'Service Unavailable',
            message: 'the collector is busy answering other queries; retry in 1 s',
          }),
        });
      }
      if (/\/assets\/world-[^/]+\.js/.test(url) && chunkFailures > 0) {
        chunkFailures--;
        return void r.respond({ status: 503, body: '' });
      }
      void r.continue();
    });
    try {
      await p.goto(`${base}/?range=30d`);
      await waitForRenders(p, 1);
      expect((await panelStates(p)).map).toBe('ready');
      // Twice in a row: the panel says so in the collector's words and offers Retry.
      failures = 2;
      await p.select('select[name=metric]', 'connect');
      await waitForRenders(p, 2);
      const failed = Object.entries(await panelStates(p)).filter(([, state]) => state === 'error');
      expect(failed.map(([id]) => id)).toContain('map');
      // Only the panels that read the map's answer can fail with it (the verdict does too, when its own second
      // try met the same failure); the page counts exactly the failed ones, and a retry starts over.
      expect(failed.every(([id]) => id === 'map' || id === 'verdict')).toBe(true);
      expect(await settled(p)).toEqual({ panels: 'settled', failedPanels: String(failed.length) });
      expect(await p.$eval('#map .status', (e) => e.textContent)).toContain('busy');
      await p.click('#map .status button.retry');
      await p.waitForFunction(() => (document.querySelector('#map') as HTMLElement).dataset.state === 'ready', {
        timeout: 60_000,
      });
      // The verdict reads the same map answer: if its own second try met the same failure, its Retry recovers it.
      if ((await panelStates(p)).verdict === 'error') {
        await p.click('#verdict .status button.retry');
        await p.waitForFunction(() => (document.querySelector('#verdict') as HTMLElement).dataset.state === 'ready', {
          timeout: 60_000,
        });
      }
      const others = await panelStates(p);
      expect({ ...others, alerts: '', config: '' }).toEqual({ ...states('ready'), alerts: '', config: '' });
    } finally {
      await p.close();
    }
  });

  it("the charts' own script, refused once, is fetched again: every chart draws without a reload", async () => {
    const p = await browser.newPage();
    await p.setViewport({ width: 1440, height: 1000 });
    const asked: string[] = [];
    let chunkFailures = 1;
    await p.setRequestInterception(true);
    p.on('request', (r) => {
      const url = r.url();
      if (/\/assets\/echarts-[^/]+\.js/.test(url)) {
        asked.push(new URL(url).search);
        if (chunkFailures-- > 0) return void r.respond({ status: 503, body: '' });
      }
      void r.continue();
    });
    try {
      await p.goto(`${base}/?range=30d`);
      await waitForRenders(p, 1);
      expect(asked).toHaveLength(2);
      expect(asked[0]).toBe('');
      expect(asked[1]).toMatch(/^\?retry=\d+$/);
      const all = await panelStates(p);
      expect({ ...all, alerts: '', config: '' }).toEqual({ ...states('ready'), alerts: '', config: '' });
      const sizes = await seriesSizes(p);
      for (const id of ['compare', 'map', 'trends', 'phases', 'shares', 'whatif'])
        expect(
          sizes[id]!.flat().some((n) => n > 0),
          id,
        ).toBe(true);
    } finally {
      await p.close();
    }
  });

  it('the what-if panel, refused once by a busy collector, asks again by itself and draws', async () => {
    const p = await browser.newPage();
    await p.setViewport({ width: 1440, height: 1000 });
    let asked = 0;
    await p.setRequestInterception(true);
    p.on('request', (r) => {
      if (!r.url().includes('/v1/whatif')) return void r.continue();
      if (asked++ > 0) return void r.continue();
      return void r.respond({
        status: 503,
        headers: { 'retry-after': '1' },
        contentType: 'application/json',
        body: JSON.stringify({ statusCode: 503, error: 'Service Unavailable', message: 'busy, retry in 1 s' }),
      });
    });
    try {
      await p.goto(`${base}/?range=24h`);
      await waitForRenders(p, 1);
      expect(asked).toBe(2);
      expect((await panelStates(p)).whatif).toBe('ready');
      expect(await settled(p)).toEqual({ panels: 'settled', failedPanels: '0' });
    } finally {
      await p.close();
    }
  });

  it("names the token's site even when the collector is busy for the first answer that would say it", async () => {
    const { token, hash } = newReadToken();
    await app.sites.register('busy.example.net', hash);
    const p = await browser.newPage();
    await p.setViewport({ width: 1280, height: 900 });
    // The comparison by stack is the answer that names a token's site: the collector is busy for it once.
    let failures = 1;
    await p.setRequestInterception(true);
    p.on('request', (r) => {
      const url = new URL(r.url());
      const withToken = Boolean(r.headers()['authorization']);
      if (
        withToken &&
        url.pathname === '/v1/compare' &&
        url.searchParams.get('dimensions') === 'stack' &&
        failures > 0
      ) {
        failures--;
        return void r.respond({
          status: 503,
          headers: { 'retry-after': '1' },
          contentType: 'application/json',
          body: JSON.stringify({ statusCode: 503, error: 'Service Unavailable', message: 'busy; retry in 1 s' }),
        });
      }
      void r.continue();
    });
    try {
      await p.goto(`${base}/?range=30d`);
      await waitForRenders(p, 1);
      await p.type('input[name=token]', token);
      await p.click('#apply-token');
      await waitForRenders(p, 2);
      expect(failures).toBe(0);
      expect(await p.$eval('#scope', (s) => s.textContent)).toBe('Site busy.example.net');
      expect(await p.$eval('select[name=site]', (s) => (s as HTMLSelectElement).value)).toBe('busy.example.net');
      // The panels that read the token's site know it: none asks for the token the reader has entered.
      expect(await p.$eval('#config', (s) => s.textContent)).toContain('busy.example.net');
      expect(await p.evaluate(() => document.body.innerText)).not.toContain('enter your read token');
    } finally {
      await p.close();
    }
  });

  it('reads one site with its read token, kept out of the URL', async () => {
    const { token, hash } = newReadToken();
    await app.sites.register('shop.example.com', hash);
    await page.goto(`${base}/?range=30d`);
    await waitForRenders(page, 1);
    const allSites = await page.$eval('#compare tbody', (t) => t.textContent);
    // A wrong token: one message saying it is not valid (not "needs a token"), not one per panel.
    await page.type('input[name=token]', 'tlsrum_rt_not-a-valid-token-at-all-0000000000000000');
    await page.click('#apply-token');
    await waitForRenders(page, 2);
    const notice = await page.$eval('#notice', (n) => [(n as HTMLElement).hidden, n.textContent]);
    expect(notice).toEqual([false, expect.stringContaining('This read token is not valid')]);
    expect(await page.evaluate(() => document.body.innerText.split('not valid').length - 1)).toBe(1);
    // The right token, applied with the button: the Site selector follows it.
    await page.$eval('input[name=token]', (i) => ((i as HTMLInputElement).value = ''));
    await page.type('input[name=token]', token);
    await page.click('#apply-token');
    await waitForRenders(page, 3);
    expect(await page.$eval('#scope', (s) => s.textContent)).toBe('Site shop.example.com');
    expect(await page.$eval('#notice', (n) => (n as HTMLElement).hidden)).toBe(true);
    expect(await page.$eval('select[name=site]', (s) => (s as HTMLSelectElement).value)).toBe('shop.example.com');
    await expectReadyWithToken(page);
    expect(await page.$eval('#compare tbody', (t) => t.textContent)).not.toBe(allSites);
    expect(page.url()).not.toContain(token);
    // The site the token reads goes into the URL (the token does not), and the view reloads the same.
    expect(new URL(page.url()).searchParams.get('site')).toBe('shop.example.com');
    await page.reload();
    await waitForRenders(page, 1);
    await expectReadyWithToken(page);
    // Opened afresh, a site with beacon records shows its own visitors first, and says so.
    expect(new URL(page.url()).searchParams.get('source')).toBe('page');
    expect(await page.$eval('select[name=source]', (s) => (s as HTMLSelectElement).value)).toBe('page');
    expect(await page.$eval('#scope', (s) => s.textContent)).toMatch(
      /shop\.example\.com: its own visitors, measured by its beacon/,
    );
    // "All sources" is the reader's choice and stays so.
    await page.select('select[name=source]', '');
    await waitForRenders(page, 2);
    expect(new URL(page.url()).searchParams.has('source')).toBe(false);
    expect(await page.$eval('select[name=source]', (s) => (s as HTMLSelectElement).value)).toBe('');
    await expectReadyWithToken(page);
    await page.evaluate(() => sessionStorage.clear());
  });

  it('never clips a table at 1280 px', async () => {
    await page.setViewport({ width: 1280, height: 900 });
    await page.goto(`${base}/?range=30d`);
    await waitForRenders(page, 1);
    // Each table holder shows its table's full width (it may scroll vertically, never sideways).
    const clipped = await page.$$eval('.table-wrap', (els) =>
      els
        .filter((e) => e.scrollWidth > e.clientWidth + 1)
        .map((e) => `${e.closest('section')!.id}: ${e.scrollWidth} > ${e.clientWidth}`),
    );
    expect(clipped).toEqual([]);
    // A site's view, with its alerts evaluated: the alerts table fits too, headers whole.
    const { token, hash } = newReadToken();
    await app.sites.register('app.example.io', hash);
    await app.alerts.evaluate(Date.now());
    await page.evaluate((t) => sessionStorage.setItem('tlsrum.readToken', t), token);
    await page.goto(`${base}/?range=7d`);
    await waitForRenders(page, 1);
    await page.waitForFunction(() => document.getElementById('scope')!.textContent!.startsWith('Site app.example.io'));
    await page.$$eval('details', (ds) => ds.forEach((d) => ((d as HTMLDetailsElement).open = true)));
    expect((await panelStates(page)).alerts).toBe('ready');
    const clippedSite = await page.$$eval('.table-wrap', (els) =>
      els
        .filter((e) => e.scrollWidth > e.clientWidth + 1)
        .map((e) => `${e.closest('section')!.id}: ${e.scrollWidth} > ${e.clientWidth}`),
    );
    expect(clippedSite).toEqual([]);
    const heads = await page.$$eval('#alerts thead th', (ths) =>
      ths.map((t) => [t.textContent, t.scrollWidth <= t.clientWidth + 1]),
    );
    for (const [text, whole] of heads) expect(whole, String(text)).toBe(true);
    await page.evaluate(() => sessionStorage.clear());
  });

  it('keeps every filter control where it is while the answers fill the site and country lists: a click aimed at "Apply token" lands on it', async () => {
    await page.setViewport({ width: 1280, height: 900 });
    // A registered site with a long name, wider than any control's own width.
    await app.sites.register('checkout.a-rather-long-shop-name.example.com', newReadToken().hash);
    const places = () =>
      page.$$eval('#filters select, #filters input, #filters button', (els) =>
        els.map((e) => {
          const r = e.getBoundingClientRect();
          return `${(e as HTMLInputElement).name || e.id} ${Math.round(r.x)},${Math.round(r.y)} ${Math.round(r.width)}`;
        }),
      );
    // As early as a person can click: the page's script has run, none of its answers has arrived.
    await page.goto(`${base}/?range=30d`, { waitUntil: 'domcontentloaded' });
    const before = await places();
    await page.waitForFunction(() => document.body.dataset.panels === 'settled', { timeout: 60_000 });
    // The lists did fill in: the registered sites and dozens of countries.
    expect(await page.$$eval('select[name=site] option', (o) => o.map((x) => x.value))).toContain(
      'checkout.a-rather-long-shop-name.example.com',
    );
    expect(await page.$$eval('select[name=country] option', (o) => o.length)).toBeGreaterThan(30);
    expect(await places()).toEqual(before);
  });

  it('tells a screen reader what each chart shows: its plain label, then its figures in words, with dates, never timestamps', async () => {
    await page.goto(`${base}/?range=7d`);
    await waitForRenders(page, 1);
    const charts = await page.$$eval('section.panel .chart[role=img]', (els) =>
      els.map((e) => ({ panel: e.closest('section')!.id, name: e.getAttribute('aria-label') ?? '' })),
    );
    expect(charts.length).toBeGreaterThanOrEqual(14);
    for (const { panel, name } of charts) {
      // No epoch milliseconds, no ECharts boilerplate.
      expect(name, panel).not.toMatch(/\d{10,}|This is a chart/);
      // Every chart but the map (whose figures are in its table) says figures in the chart's unit.
      if (panel !== 'map') expect(name, panel).toMatch(/\. .+: .*\d (ms|%)/);
    }
    const named = (panel: string) => charts.filter((c) => c.panel === panel).map((c) => c.name);
    // Bars: each group with its value in the tooltip's unit.
    expect(named('compare')[0]).toMatch(
      /^Bar chart: p75 TLS handshake time per protocol and handshake mode\. TLS 1\.2 · full: [\d.]+ ms; /,
    );
    // Lines over time: the latest value with its date, and the period's lowest and highest.
    expect(named('trends')[0]).toMatch(
      /TLS 1\.3: [\d.]+ ms on \d{1,2} [A-Z][a-z]{2}(, between [\d.]+ ms and [\d.]+ ms over the period)?[;.]/,
    );
    expect(named('shares')[0]).toMatch(/HTTP\/2: \d+ % on \d{1,2} [A-Z][a-z]{2}/);
    // The map's figures are in its table beside it: its name is its label.
    expect(named('map')).toEqual(['World map: p75 time per country']);
  });

  it('fits a phone screen and can be used with the keyboard', async () => {
    await page.setViewport({ width: 390, height: 844, isMobile: true });
    await page.goto(`${base}/?range=7d`);
    await waitForRenders(page, 1);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await page.screenshot({ path: join(artifacts, 'dashboard-phone.png'), fullPage: true });
    // Tab reaches every filter and every CSV button.
    const reached = new Set<string>();
    await page.focus('select[name=site]');
    for (let i = 0; i < 40; i++) {
      reached.add(
        await page.evaluate(() => {
          const el = document.activeElement as HTMLElement | null;
          return el ? `${el.tagName.toLowerCase()}:${el.getAttribute('name') ?? el.className}` : '';
        }),
      );
      await page.keyboard.press('Tab');
    }
    for (const name of ['site', 'range', 'source', 'browser', 'country', 'metric'])
      expect(reached).toContain(`select:${name}`);
    expect(reached).toContain('input:token');
    expect(reached).toContain('button:csv');
    expect(await page.$$eval('.csv', (bs) => bs.every((b) => (b as HTMLButtonElement).tabIndex >= 0))).toBe(true);
  });
});
