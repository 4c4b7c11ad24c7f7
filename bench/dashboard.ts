/** The dashboard bench. What it measures, how to run it and its settings: its entry in lib/catalogue.ts (shown in BENCHMARKS.md). */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';
import { CHROMIUM_ARGS } from './lib/bench-page';
import { spawnTs } from '@tlsrum/collector/test/node-process';
import { SITES } from '@tlsrum/collector/demo/profiles';
import { repoRoot, stop, TIMED_COLLECTOR_ENV } from './lib/processes';
import { machine, median, printResult, printTable, quantile, round } from './lib/report';
import { commitOf } from './lib/results';
import { seedDemoStore, visitRecordsField } from './lib/store-child';
import { describeLoad, loadAverage } from './lib/load';

/** The demo's size by default (`pnpm demo`: DEMO_RECORDS, 1.2 M over 30 days). */
const ROWS = Number(process.env.BENCH_ROWS ?? 1_200_000);
const LOADS = Number(process.env.BENCH_DASHBOARD_LOADS ?? 20);
/** A load that has not settled by then counts its unsettled panels as failed. */
const LOAD_TIMEOUT_MS = Number(process.env.BENCH_DASHBOARD_TIMEOUT_MS ?? 60_000);
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Fill (or reuse) this folder and keep it: a second run skips the generation. */
const KEPT_DIR = process.env.BENCH_DASHBOARD_DATA_DIR;
/**
 * The range the dashboard shows (its range control: `24h`, `7d`, `30d`): its default week unless set. "The last
 * 24 hours" is the view of someone checking a deploy: whole hours, not whole days, read by the hour.
 */
const RANGE = process.env.BENCH_DASHBOARD_RANGE ?? '7d';
if (!['24h', '7d', '30d'].includes(RANGE)) throw new Error(`BENCH_DASHBOARD_RANGE is 24h, 7d or 30d, not ${RANGE}`);
/**
 * A connection to load the dashboard over, emulated by Chromium: `down/up/rtt` in Mbit/s, Mbit/s and ms (`20/5/40`,
 * a home connection). Unset: this machine's own loopback, over which the goal is stated.
 */
const NETWORK = network(process.env.BENCH_DASHBOARD_NETWORK);
function network(value: string | undefined) {
  if (!value) return null;
  const m = /^(\d+(?:\.\d+)?)\/(\d+(?:\.\d+)?)\/(\d+)$/.exec(value);
  if (!m)
    throw new Error(`BENCH_DASHBOARD_NETWORK is down/up/rtt in Mbit/s, Mbit/s and ms (e.g. 20/5/40), not ${value}`);
  // Chromium takes bytes per second: a Mbit/s is 125 000 of them.
  return { name: value, download: Number(m[1]) * 125_000, upload: Number(m[2]) * 125_000, latency: Number(m[3]) };
}
/** Another checkout's collector and built dashboard (before/after on the same kept store). */
const TREE = process.env.BENCH_DASHBOARD_TREE ?? repoRoot;
const DASHBOARD_DIR = join(TREE, 'dashboard/dist');
const DAYS = 30;
const HOUR = 3_600_000;
const ADMIN = 'bench-dashboard-admin-token';

interface View {
  name: string;
  path: string;
  token: string;
}

interface Load {
  ms: number;
  failed: number;
  /** Each request of the load: its address, what it asked (route and dimensions) and how long it took, ms. */
  requests: { url: string; what: string; ms: number }[];
  /**
   * The page's own work, ms, from its performance timeline (dashboard/src/main.ts, panel.ts): each panel's
   * drawing ("render compare") and chart creation ("charts compare"), and when the last answer arrived.
   */
  page: Record<string, number>;
}

/** Read on the page once it has settled (a string: this package is typed for Node, without the DOM's names). */
const PAGE_TIMES = `(() => {
  const out = {};
  for (const e of performance.getEntriesByType('measure'))
    if (e.name.startsWith('tlsrum ')) out[e.name.slice(7)] = (out[e.name.slice(7)] ?? 0) + e.duration;
  const answers = performance.getEntriesByType('resource').filter((r) => new URL(r.name).pathname.startsWith('/v1/'));
  if (answers.length) out['last answer arrived (since navigation)'] = Math.max(...answers.map((r) => r.responseEnd));
  return out;
})()`;

/** A request named by what it asks: the API route and its dimensions, or the kind of file. */
function requestName(url: string): string {
  const u = new URL(url);
  if (!u.pathname.startsWith('/v1/')) return u.pathname === '/' ? 'page' : 'files';
  const dims = u.searchParams.get('dimensions');
  return dims ? `${u.pathname} ${dims}` : u.pathname;
}

/**
 * One load as a new visitor has it: a fresh browser context (no cache, no storage), the read token put into
 * sessionStorage before the page runs (as the token field does), then the time from navigation until the page
 * says every panel has settled (`data-panels` on <body>, dashboard/src/main.ts) and how many failed.
 */
async function loadOnce(browser: Browser, base: string, view: View): Promise<Load> {
  const context = await browser.createBrowserContext();
  try {
    const page = await context.newPage();
    await page.setViewport({ width: 1440, height: 1000 });
    if (NETWORK) await page.emulateNetworkConditions(NETWORK);
    // Page-side code as strings: this package is typed for Node, without the DOM's names.
    if (view.token)
      await page.evaluateOnNewDocument(`sessionStorage.setItem('tlsrum.readToken', ${JSON.stringify(view.token)})`);
    const started = new Map<unknown, number>();
    const requests: Load['requests'] = [];
    page.on('request', (r) => started.set(r, performance.now()));
    const finished = (r: { url(): string }) => {
      const t = started.get(r);
      started.delete(r);
      if (t !== undefined) requests.push({ url: r.url(), what: requestName(r.url()), ms: performance.now() - t });
    };
    page.on('requestfinished', finished);
    page.on('requestfailed', finished);
    const t0 = performance.now();
    await page.goto(`${base}${view.path}`, { waitUntil: 'domcontentloaded' });
    try {
      await page.waitForFunction(`document.body.dataset.panels === 'settled'`, { timeout: LOAD_TIMEOUT_MS });
    } catch {
      // Not settled in time: every panel still loading or failed counts as failed. What it still waited for is
      // said, so a stuck load can be told apart from a slow one: its panels' states and its requests still open.
      const panels = (await page.evaluate(
        `[...document.querySelectorAll('section.panel')].filter((e) => ['loading', 'error'].includes(e.dataset.state)).map((e) => e.id + ' ' + e.dataset.state)`,
      )) as string[];
      const now = performance.now();
      const open = [...started].map(
        ([r, t]) => `${requestName((r as { url(): string }).url())} (${round(now - t, 0)} ms)`,
      );
      console.error(
        `${view.name}: not settled after ${LOAD_TIMEOUT_MS} ms; panels ${panels.join(', ') || 'none'}; requests still open: ${open.join(', ') || 'none'}`,
      );
      return { ms: now - t0, failed: panels.length, requests, page: {} };
    }
    const ms = performance.now() - t0;
    const failed = Number(await page.evaluate(`document.body.dataset.failedPanels`));
    return { ms, failed, requests, page: (await page.evaluate(PAGE_TIMES)) as Record<string, number> };
  } finally {
    await context.close();
  }
}

/** Runs of each request when replayed alone (the median is kept). */
const REPLAYS = 5;

/**
 * The work behind one load, without the contention of its own burst: each API request of the load asked
 * again alone, one after another (the view's token as the page sends it), REPLAYS times; median ms each.
 * Their sum is what the collector and the store spend on one load; the load itself takes less when they
 * run side by side, more when they queue.
 */
async function replayAlone(load: Load, token: string): Promise<{ what: string; ms: number }[]> {
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  const out: { what: string; ms: number }[] = [];
  for (const r of load.requests) {
    if (!new URL(r.url).pathname.startsWith('/v1/')) continue;
    const times: number[] = [];
    for (let i = 0; i < REPLAYS; i++) {
      const t0 = performance.now();
      const res = await fetch(r.url, { headers });
      await res.arrayBuffer();
      if (!res.ok) throw new Error(`replaying ${r.url}: ${res.status}`);
      times.push(performance.now() - t0);
    }
    out.push({ what: r.what, ms: median(times) });
  }
  return out;
}

/** How often the site's registration is asked again after a 503 (the collector's load guard, with Retry-After). */
const REGISTER_TRIES = 5;

/**
 * The demo site's read token. A collector whose event loop lags (the machine busy with the previous run's
 * Chromium) sheds writes with 503 and Retry-After, as it should: wait as it says and ask again.
 */
async function registerSite(base: string, hostname: string): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    const res = await fetch(`${base}/v1/sites`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ hostname }),
    });
    const body = (await res.json()) as { readToken?: string };
    if (res.ok && body.readToken) return body.readToken;
    if (res.status !== 503 || attempt >= REGISTER_TRIES)
      throw new Error(`registering ${hostname}: ${res.status} ${JSON.stringify(body)}`);
    const seconds = Math.min(30, Math.max(1, Number(res.headers.get('retry-after')) || 1));
    console.error(`registering ${hostname}: 503, retrying in ${seconds} s (${JSON.stringify(body)})`);
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  }
}

async function main(): Promise<void> {
  if (!existsSync(join(DASHBOARD_DIR, 'index.html')))
    throw new Error(
      'the dashboard is not built: run `pnpm --filter @tlsrum/dashboard build` (pnpm bench:dashboard does)',
    );
  console.log(
    `dashboard benchmark: ${ROWS.toLocaleString('en')} records over ${DAYS} days, the dashboard's range ${RANGE}, ${LOADS} loads per view in Chromium${NETWORK ? ` over an emulated ${NETWORK.name} connection (Mbit/s down / up, ms)` : ''}; ${machine()}; ${describeLoad()}`,
  );
  const loadAtStart = loadAverage();
  if (KEPT_DIR) mkdirSync(KEPT_DIR, { recursive: true });
  const dataDir = KEPT_DIR ?? mkdtempSync(join(tmpdir(), 'tlsrum-bench-dashboard-'));
  const keptRows = join(dataDir, 'bench-rows.json');
  // Ending at the current hour: the dashboard's ranges end now, and its default week holds every generated day.
  const end = Math.floor(Date.now() / HOUR) * HOUR;
  let collector: Awaited<ReturnType<typeof spawnTs>> | null = null;
  let browser: Browser | null = null;
  try {
    let seeded: { rows: number };
    if (existsSync(keptRows)) {
      seeded = JSON.parse(readFileSync(keptRows, 'utf8')) as { rows: number };
      console.log(`reusing the ${seeded.rows.toLocaleString('en')} records kept in ${dataDir}`);
    } else {
      const made = await seedDemoStore(dataDir, ROWS, end, DAYS);
      console.log(
        `generated ${made.generatedRows.toLocaleString('en')} records in ${round(made.generateSeconds, 1)} s; ${describeLoad()}`,
      );
      seeded = { rows: made.rows };
      if (KEPT_DIR) writeFileSync(keptRows, JSON.stringify(seeded));
    }
    const site = SITES[0]!.hostname;
    // The default range is left out of the address, as the dashboard itself writes it (dashboard/src/state.ts).
    const range = RANGE === '7d' ? '' : `range=${RANGE}`;
    const views: View[] = [
      { name: 'all sites', path: `/${range ? `?${range}` : ''}`, token: '' },
      {
        name: `one site (${site}, its token)`,
        path: `/?site=${encodeURIComponent(site)}${range ? `&${range}` : ''}`,
        token: '',
      },
    ];
    browser = await puppeteer.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [...CHROMIUM_ARGS],
    });
    // Two passes over the same store: as the collector runs by default (answers kept ANSWER_CACHE_SECONDS,
    // then served while refreshed for ANSWER_STALE_SECONDS: a view in use reads kept answers), then with
    // nothing kept (every load works out every answer: the first visitor of a view unused for a while).
    const passes: { name: string; env: Record<string, string> }[] = [
      { name: 'kept answers (default)', env: {} },
      { name: 'nothing kept', env: { ANSWER_CACHE_SECONDS: '0' } },
    ];
    const results: { pass: string; byView: Map<string, Load[]> }[] = [];
    /** Each view's first load right after the collector started, in the default pass. */
    const firstLoads: Load[] = [];
    /** Per view, each request of its last load with nothing kept, replayed alone. */
    const work = new Map<string, { what: string; ms: number }[]>();
    for (const pass of passes) {
      collector = await spawnTs('collector/src/server.ts', {
        cwd: TREE,
        env: {
          ...TIMED_COLLECTOR_ENV,
          DATA_DIR: dataDir,
          DASHBOARD_DIR,
          ADMIN_TOKEN: ADMIN,
          ...pass.env,
        },
        ready: { serves: '/readyz' },
        timeoutMs: 600_000,
      });
      views[1]!.token = await registerSite(collector.url, site);
      // One load per view first, not counted: the collector's and the store's first queries warm their caches.
      // The default pass's first one is what a person opening the dashboard just after a restart meets, while
      // the collector's start-up reads (the per-client cap's counts, the site profiles) run beside it.
      for (const v of views) {
        const l = await loadOnce(browser, collector.url, v);
        if (results.length === 0) firstLoads.push(l);
      }
      const byView = new Map<string, Load[]>();
      for (let i = 0; i < LOADS; i++)
        for (const v of views) {
          const l = await loadOnce(browser, collector.url, v);
          byView.set(v.name, [...(byView.get(v.name) ?? []), l]);
        }
      if (pass.env.ANSWER_CACHE_SECONDS === '0')
        for (const v of views) work.set(v.name, await replayAlone(byView.get(v.name)!.at(-1)!, v.token));
      await stop(collector);
      collector = null;
      results.push({ pass: pass.name, byView });
    }
    printTable(
      `time until every panel settled, ms (${seeded.rows.toLocaleString('en')} records; ${LOADS} loads per view)`,
      results.flatMap(({ pass, byView }) =>
        [...byView].map(([view, loads]) => ({
          pass,
          view,
          loads: loads.length,
          p50: round(median(loads.map((l) => l.ms)), 0),
          p95: round(
            quantile(
              loads.map((l) => l.ms),
              0.95,
            ),
            0,
          ),
          max: round(Math.max(...loads.map((l) => l.ms)), 0),
          'failed panels': loads.reduce((a, l) => a + l.failed, 0),
        })),
      ),
    );
    // Where the page's own time goes when every answer is kept (the answers then arrive at once).
    const pageTimes = new Map<string, number[]>();
    for (const l of [...results[0]!.byView.values()].flat())
      for (const [what, ms] of Object.entries(l.page)) pageTimes.set(what, [...(pageTimes.get(what) ?? []), ms]);
    printTable(
      "the page's own work in a load with kept answers (ms, both views): each panel drawing its answer and creating its charts, until it returns or first waits",
      [...pageTimes]
        .map(([what, ms]) => ({ what, n: ms.length, p50: round(median(ms), 0), p95: round(quantile(ms, 0.95), 0) }))
        .sort((a, b) => b.p50 - a.p50),
    );
    // Where the time goes when nothing is kept: each kind of request a load makes, slowest first.
    const cold = results[1]!.byView;
    const byRequest = new Map<string, number[]>();
    for (const [view, loads] of cold)
      for (const r of loads.flatMap((l) => l.requests)) {
        const key = `${view === views[0]!.name ? 'all' : 'site'}  ${r.what}`;
        byRequest.set(key, [...(byRequest.get(key) ?? []), r.ms]);
      }
    printTable(
      'requests of a load with nothing kept, slowest first (ms; "all" = the all-sites view, "site" = the site\'s view)',
      [...byRequest]
        .map(([request, ms]) => ({
          request,
          n: ms.length,
          p50: round(median(ms), 0),
          p95: round(quantile(ms, 0.95), 0),
        }))
        .sort((a, b) => b.p50 - a.p50)
        .slice(0, 15),
    );
    // The same requests alone: which ones carry the work, and their sum (the load's work without its burst).
    printTable(
      `each request of a load with nothing kept, replayed alone one after another (median of ${REPLAYS}, ms), heaviest first`,
      [...work]
        .flatMap(([view, reqs]) =>
          reqs.map((r) => ({ request: `${view === views[0]!.name ? 'all' : 'site'}  ${r.what}`, ms: round(r.ms, 0) })),
        )
        .sort((a, b) => b.ms - a.ms)
        .slice(0, 15),
    );
    const workMs = Object.fromEntries(
      [...work].map(([view, reqs]) => [
        view === views[0]!.name ? 'all' : 'site',
        round(
          reqs.reduce((a, r) => a + r.ms, 0),
          0,
        ),
      ]),
    );
    console.log(
      `a load's requests alone, one after another, in all: ${Object.entries(workMs)
        .map(
          ([view, ms]) =>
            `${view} ${ms} ms (${work.get(view === 'all' ? views[0]!.name : views[1]!.name)!.length} requests)`,
        )
        .join(', ')}`,
    );
    const all = [...results[0]!.byView.values()].flat();
    const allCold = [...cold.values()].flat();
    const p95 = quantile(
      all.map((l) => l.ms),
      0.95,
    );
    const goal = ROWS >= 10_000_000 ? 2000 : 1500;
    console.log(
      `p95 / goal (${goal} ms at ${ROWS >= 10_000_000 ? '10 M' : "the demo's size"}): ${round(p95 / goal, 2)}; load average ${loadAtStart.load1} → ${loadAverage().load1}`,
    );
    printResult({
      bench: 'dashboard',
      ...(TREE === repoRoot ? {} : { commit: commitOf(TREE) }),
      rows: seeded.rows,
      ...visitRecordsField(),
      ...(RANGE === '7d' ? {} : { range: RANGE }),
      ...(NETWORK ? { network: NETWORK.name } : {}),
      loads: all.length,
      p50Ms: round(median(all.map((l) => l.ms)), 0),
      p95Ms: round(p95, 0),
      coldP50Ms: round(median(allCold.map((l) => l.ms)), 0),
      coldP95Ms: round(
        quantile(
          allCold.map((l) => l.ms),
          0.95,
        ),
        0,
      ),
      failedPanels: [...all, ...allCold].reduce((a, l) => a + l.failed, 0),
      coldWorkMs: Math.max(...Object.values(workMs)),
      firstLoadMs: round(Math.max(...firstLoads.map((l) => l.ms)), 0),
    });
  } finally {
    await browser?.close();
    if (collector) await stop(collector);
    if (!KEPT_DIR) rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
