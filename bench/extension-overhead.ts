/** The extension-overhead bench. What it measures, how to run it and its settings: its entry in lib/catalogue.ts (shown in BENCHMARKS.md). */
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';
import { repoRoot } from './lib/processes';
import { benchCertificate, benchHostArgs, CHROMIUM_ARGS, PNG } from './lib/bench-page';
import { machine, median, printResult, printTable, quantile, round } from './lib/report';
import { rendererMainThreadMs, scriptCost, TRACE_CATEGORIES, type ScriptCost, type TraceEvent } from './lib/trace';

const RUNS = Number(process.env.BENCH_EXT_RUNS ?? 30);
const TRACED = Number(process.env.BENCH_EXT_TRACED ?? 10);
const RESOURCES = 50;
const ORIGINS = ['a', 'b', 'c', 'd', 'e'].map((h) => `${h}.bench.test`);
const EXTENSION_DIR = join(repoRoot, 'extension/dist/chromium');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

function page(port: number): string {
  const items: string[] = [];
  for (let i = 0; i < RESOURCES; i++) {
    const origin = `https://${ORIGINS[i % ORIGINS.length]}:${port}`;
    items.push(
      i % 10 === 9
        ? `<script src="${origin}/r/${i}.js"></script>`
        : `<img src="${origin}/r/${i}.png" width="1" height="1" alt="">`,
    );
  }
  return `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>bench</title></head><body><h1>50 resources</h1>${items.join('\n')}</body></html>`;
}

async function startServer(tls: { key: Buffer; cert: Buffer }): Promise<{ server: Server; port: number }> {
  let port = 0;
  const server = createServer({ ...tls, keepAlive: false }, (req, res) => {
    const headers = { 'timing-allow-origin': '*', 'cache-control': 'no-store', connection: 'close' };
    if (req.url === '/') res.writeHead(200, { ...headers, 'content-type': 'text/html' }).end(page(port));
    else if (req.url?.endsWith('.js'))
      res.writeHead(200, { ...headers, 'content-type': 'text/javascript' }).end('window.__n = (window.__n || 0) + 1;');
    else res.writeHead(200, { ...headers, 'content-type': 'image/png' }).end(PNG);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
  return { server, port };
}

async function launch(profile: string, spki: string, extensionDir: string | null): Promise<Browser> {
  mkdirSync(join(profile, 'Default'), { recursive: true });
  // No preconnect or prediction: every connection the page makes is one the page asked for.
  writeFileSync(join(profile, 'Default', 'Preferences'), JSON.stringify({ net: { network_prediction_options: 2 } }));
  return puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    pipe: true,
    enableExtensions: extensionDir ? [extensionDir] : false,
    userDataDir: profile,
    args: [...CHROMIUM_ARGS, ...benchHostArgs(spki)],
  });
}

/** Opts the extension in as a user would (the popup's message) and returns its origin. */
async function optIn(browser: Browser): Promise<string> {
  const worker = await browser.waitForTarget(
    (t) => t.type() === 'service_worker' && t.url().startsWith('chrome-extension://'),
    { timeout: 20_000 },
  );
  // URL.origin is "null" for chrome-extension: URLs (not a special scheme): cut it by hand.
  const origin = worker.url().split('/').slice(0, 3).join('/');
  const p = await browser.newPage();
  await p.goto(`${origin}/popup/index.html`);
  // Page-side code as strings: this file is type-checked for Node, without the DOM or chrome.* types.
  await p.evaluate(`chrome.runtime.sendMessage({ type: 'set-opt-in', optedIn: true })`);
  // Keep records local: nothing of the benchmark is uploaded anywhere.
  await p.evaluate(`(async () => {
    const { settings } = await chrome.storage.local.get('settings');
    await chrome.storage.local.set({ settings: { ...settings, flushAt: 1000000, collectorUrl: 'http://127.0.0.1:9/' } });
  })()`);
  await p.close();
  return origin;
}

async function loadOnce(browser: Browser, url: string): Promise<number> {
  const p = await browser.newPage();
  try {
    await p.goto(url, { waitUntil: 'load' });
    const loadEventEnd = (await p.evaluate(`performance.getEntriesByType('navigation')[0].loadEventEnd`)) as number;
    const n = (await p.evaluate(`performance.getEntriesByType('resource').length`)) as number;
    if (n !== RESOURCES) throw new Error(`page loaded ${n} resources, expected ${RESOURCES}`);
    return loadEventEnd;
  } finally {
    await p.close();
  }
}

type Variant = 'without' | 'empty' | 'with';
const VARIANTS: readonly Variant[] = ['without', 'empty', 'with'];
const LABEL: Record<Variant, string> = {
  without: 'without extension',
  empty: 'extension with an empty content script',
  with: 'with extension (opted in)',
};

/**
 * The built extension with content.js emptied: the same registration after opt-in, so Chromium injects
 * a content script into every page, but none of our code runs. Its cost is Chromium's, not ours.
 */
function emptyScriptExtension(dir: string): string {
  const out = join(dir, 'extension-empty-content-script');
  cpSync(EXTENSION_DIR, out, { recursive: true });
  writeFileSync(join(out, 'content.js'), '/* bench baseline: an empty content script */\n');
  return out;
}

interface TracedPage extends ScriptCost {
  /** CPU ms of the page renderer's main thread, all tasks. */
  rendererMs: number;
}

/** One traced load: the content script's own main-thread time and the whole main thread's. */
async function tracedLoad(
  browser: Browser,
  url: string,
  extensionOrigin: string | null,
  dumpDir?: string,
): Promise<TracedPage> {
  const p = await browser.newPage();
  try {
    await p.tracing.start({ categories: TRACE_CATEGORIES });
    await p.goto(url, { waitUntil: 'load' });
    // The content script does its work in idle time after load: wait until it surely ran.
    await new Promise((r) => setTimeout(r, 3500));
    const buf = await p.tracing.stop();
    if (dumpDir)
      writeFileSync(
        join(dumpDir, `trace-${extensionOrigin ? extensionOrigin.split('/')[2] : 'none'}-${Date.now()}.json`),
        Buffer.from(buf!),
      );
    const events = (JSON.parse(Buffer.from(buf!).toString('utf8')) as { traceEvents: TraceEvent[] }).traceEvents;
    // content.js only: the trace also holds the extension's service worker (background.js), which
    // runs in its own process, not on the page's main thread.
    const script = extensionOrigin
      ? scriptCost(events, `${extensionOrigin}/content.js`)
      : { ms: 0, wallMs: 0, tasks: 0, byKind: {} };
    return { ...script, rendererMs: rendererMainThreadMs(events, url) };
  } finally {
    await p.close();
  }
}

async function measuredByExtension(browser: Browser, origin: string | null, host: string): Promise<number> {
  if (!origin) return 0;
  const p = await browser.newPage();
  await p.goto(`${origin}/popup/index.html`);
  const recent = (await p.evaluate(`chrome.storage.local.get('recent').then((v) => v.recent ?? [])`)) as {
    host: string;
  }[];
  await p.close();
  return recent.filter((r) => ORIGINS.includes(r.host) || r.host === host).length;
}

async function main(): Promise<void> {
  if (!existsSync(join(EXTENSION_DIR, 'manifest.json')))
    throw new Error(`no extension build at ${EXTENSION_DIR}: run pnpm --filter @tlsrum/extension build`);
  console.log(
    `extension-overhead benchmark: ${RESOURCES} resources from ${ORIGINS.length} origins, new TLS connection each, ${RUNS} runs each without / with an empty content script / with the extension, rotating; ${machine()}; load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  const dir = mkdtempSync(join(tmpdir(), 'tlsrum-bench-ext-'));
  const dumpDir = process.env.BENCH_EXT_TRACE_DIR;
  const browsers: Browser[] = [];
  let server: Server | undefined;
  try {
    const tls = benchCertificate(dir);
    const started = await startServer(tls);
    server = started.server;
    const url = `https://${ORIGINS[0]}:${started.port}/`;
    const browser = {} as Record<Variant, Browser>;
    const origin: Record<Variant, string | null> = { without: null, empty: null, with: null };
    browser.without = await launch(join(dir, 'without'), tls.spki, null);
    browsers.push(browser.without);
    browser.empty = await launch(join(dir, 'empty'), tls.spki, emptyScriptExtension(dir));
    browsers.push(browser.empty);
    origin.empty = await optIn(browser.empty);
    browser.with = await launch(join(dir, 'with'), tls.spki, EXTENSION_DIR);
    browsers.push(browser.with);
    origin.with = await optIn(browser.with);

    // Warm-up: first loads pay for process start and code caches.
    for (let i = 0; i < 3; i++) for (const v of VARIANTS) await loadOnce(browser[v], url);
    const times: Record<Variant, number[]> = { without: [], empty: [], with: [] };
    for (let i = 0; i < RUNS; i++) {
      // Rotate which goes first, so none always follows another.
      for (let k = 0; k < VARIANTS.length; k++) {
        const v = VARIANTS[(i + k) % VARIANTS.length]!;
        times[v].push(await loadOnce(browser[v], url));
      }
    }
    const traced: Record<Variant, TracedPage[]> = { without: [], empty: [], with: [] };
    for (let i = 0; i < TRACED; i++)
      for (const v of VARIANTS) traced[v].push(await tracedLoad(browser[v], url, origin[v], dumpDir));
    const measured = await measuredByExtension(browser.with, origin.with, ORIGINS[0]!);
    const load = loadavg();

    const p50 = (v: Variant) => median(times[v]);
    const loadRatio = p50('with') / p50('without');
    const emptyLoadRatio = p50('empty') / p50('without');
    const scriptMs = (v: Variant) => median(traced[v].map((t) => t.ms));
    const rendererMs = (v: Variant) => median(traced[v].map((t) => t.rendererMs));
    printTable(
      'loadEventEnd, ms',
      VARIANTS.map((v) => ({
        browser: LABEL[v],
        p50: round(p50(v), 1),
        p90: round(quantile(times[v], 0.9), 1),
        'ratio to without': round(p50(v) / p50('without'), 3),
        runs: times[v].length,
      })),
    );
    printTable(
      `main-thread CPU per page, ms (trace, p50 of ${TRACED} pages each)`,
      VARIANTS.map((v) => ({
        browser: LABEL[v],
        'content.js CPU': round(scriptMs(v), 3),
        'content.js max': round(Math.max(...traced[v].map((t) => t.ms)), 3),
        'content.js wall': round(median(traced[v].map((t) => t.wallMs)), 3),
        'content.js tasks': median(traced[v].map((t) => t.tasks)),
        'renderer main thread': round(rendererMs(v), 1),
        'renderer IQR': `${round(
          quantile(
            traced[v].map((t) => t.rendererMs),
            0.25,
          ),
          1,
        )}–${round(
          quantile(
            traced[v].map((t) => t.rendererMs),
            0.75,
          ),
          1,
        )}`,
      })),
    );
    for (const v of ['empty', 'with'] as const) {
      const kinds = [...new Set(traced[v].flatMap((t) => Object.keys(t.byKind)))];
      printTable(`${LABEL[v]}: content.js CPU by trace event (outermost spans), p50 ms per page`, [
        Object.fromEntries(kinds.map((k) => [k, round(median(traced[v].map((t) => t.byKind[k] ?? 0)), 3)])),
      ]);
    }
    const ownMs = scriptMs('with') - scriptMs('empty');
    console.log(
      `\nload ratio with/without: ${round(loadRatio, 3)} (goal ≤ 1.01), empty content script/without: ${round(emptyLoadRatio, 3)}`,
    );
    console.log(
      `content.js ${round(scriptMs('with'), 3)} ms per page (goal < 1), of which an empty content script's ${round(scriptMs('empty'), 3)}; our code ${round(ownMs, 3)} ms; ${measured} connections in the extension's log; load average ${load.map((l) => l.toFixed(2)).join(' ')}`,
    );
    printResult({
      bench: 'extension-overhead',
      loadRatio: round(loadRatio, 3),
      mainThreadMs: round(scriptMs('with'), 3),
      emptyScriptLoadRatio: round(emptyLoadRatio, 3),
      emptyScriptMainThreadMs: round(scriptMs('empty'), 3),
      ownMainThreadMs: round(ownMs, 3),
      mainThreadMaxMs: round(Math.max(...traced.with.map((t) => t.ms)), 3),
      mainThreadWallMs: round(median(traced.with.map((t) => t.wallMs)), 3),
      rendererMs: Object.fromEntries(VARIANTS.map((v) => [v, round(rendererMs(v), 1)])),
      loadP50Ms: Object.fromEntries(VARIANTS.map((v) => [v, round(p50(v), 1)])),
      runs: RUNS,
      tracedPages: TRACED,
      loadAverage: load.map((l) => round(l, 2)),
    });
    if (measured === 0) throw new Error('the extension measured nothing: is the content script registered (opt-in)?');
  } finally {
    await Promise.allSettled(browsers.map((b) => b.close()));
    server?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
