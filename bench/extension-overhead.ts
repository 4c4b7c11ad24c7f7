/**
 * Extension overhead benchmark. A local HTTPS page (lab CA-less: one self-signed certificate for
 * *.bench.test, trusted by its SPKI hash) with 50 resources from 5 origins, every response with
 * Timing-Allow-Origin (so the content script measures every entry) and `Connection: close` (every
 * resource opens a new TLS connection: the worst case for the extension). Two Chromium instances, one
 * with the built extension opted in and one without, load the page alternately, BENCH_EXT_RUNS times
 * each (default 30). Reports the ratio of the loadEventEnd medians (with / without) and the main-thread
 * time of the content script per page, from Chromium's trace (top-level script evaluation, function
 * calls and compilation attributed to the extension's content.js).
 *
 *   pnpm --filter @tlsrum/extension build && pnpm bench:extension-overhead
 */
import { createHash, createPublicKey } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';
import { repoRoot } from './lib/processes';
import { machine, median, printResult, printTable, quantile, round } from './lib/report';

const RUNS = Number(process.env.BENCH_EXT_RUNS ?? 30);
const TRACED = Number(process.env.BENCH_EXT_TRACED ?? 10);
const RESOURCES = 50;
const ORIGINS = ['a', 'b', 'c', 'd', 'e'].map((h) => `${h}.bench.test`);
const EXTENSION_DIR = join(repoRoot, 'extension/dist/chromium');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

function certificate(dir: string): { key: Buffer; cert: Buffer; spki: string } {
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2',
    '-subj', '/CN=bench.test', '-addext', 'subjectAltName=DNS:*.bench.test',
    '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
  ], { stdio: 'ignore' });
  const cert = readFileSync(join(dir, 'cert.pem'));
  const der = createPublicKey(cert).export({ type: 'spki', format: 'der' });
  return { key: readFileSync(join(dir, 'key.pem')), cert, spki: createHash('sha256').update(der).digest('base64') };
}

// A 1×1 PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');

function page(port: number): string {
  const items: string[] = [];
  for (let i = 0; i < RESOURCES; i++) {
    const origin = `https://${ORIGINS[i % ORIGINS.length]}:${port}`;
    items.push(i % 10 === 9 ? `<script src="${origin}/r/${i}.js"></script>` : `<img src="${origin}/r/${i}.png" width="1" height="1" alt="">`);
  }
  return `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>bench</title></head><body><h1>50 resources</h1>${items.join('\n')}</body></html>`;
}

async function startServer(tls: { key: Buffer; cert: Buffer }): Promise<{ server: Server; port: number }> {
  let port = 0;
  const server = createServer({ ...tls, keepAlive: false }, (req, res) => {
    const headers = { 'timing-allow-origin': '*', 'cache-control': 'no-store', connection: 'close' };
    if (req.url === '/') res.writeHead(200, { ...headers, 'content-type': 'text/html' }).end(page(port));
    else if (req.url?.endsWith('.js')) res.writeHead(200, { ...headers, 'content-type': 'text/javascript' }).end('window.__n = (window.__n || 0) + 1;');
    else res.writeHead(200, { ...headers, 'content-type': 'image/png' }).end(PNG);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
  return { server, port };
}

async function launch(profile: string, spki: string, extension: boolean): Promise<Browser> {
  mkdirSync(join(profile, 'Default'), { recursive: true });
  // No preconnect or prediction: every connection the page makes is one the page asked for.
  writeFileSync(join(profile, 'Default', 'Preferences'), JSON.stringify({ net: { network_prediction_options: 2 } }));
  return puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    pipe: true,
    enableExtensions: extension ? [EXTENSION_DIR] : false,
    userDataDir: profile,
    args: [
      '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync',
      '--host-resolver-rules=MAP *.bench.test 127.0.0.1',
      `--ignore-certificate-errors-spki-list=${spki}`,
    ],
  });
}

/** Opts the extension in as a user would (the popup's message) and returns its origin. */
async function optIn(browser: Browser): Promise<string> {
  const worker = await browser.waitForTarget((t) => t.type() === 'service_worker' && t.url().startsWith('chrome-extension://'), { timeout: 20_000 });
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

interface TraceEvent {
  name: string;
  ph: string;
  ts: number;
  dur?: number;
  /** thread (CPU) time of the span, µs: unlike dur, excludes time the thread was descheduled */
  tdur?: number;
  pid: number;
  tid: number;
  args?: { data?: { url?: string; scriptName?: string; frame?: string } };
}

/** Main-thread milliseconds spent in the content script on one page load, from a Chromium trace. */
async function tracedLoad(browser: Browser, url: string, extensionOrigin: string): Promise<{ ms: number; wallMs: number; tasks: number; byKind: Record<string, number> }> {
  const p = await browser.newPage();
  try {
    await p.tracing.start({ categories: ['devtools.timeline', 'v8', 'v8.execute', 'disabled-by-default-devtools.timeline'] });
    await p.goto(url, { waitUntil: 'load' });
    // The content script does its work in requestIdleCallback (timeout 3 s): wait until it surely ran.
    await new Promise((r) => setTimeout(r, 3500));
    const buf = await p.tracing.stop();
    const events = (JSON.parse(Buffer.from(buf!).toString('utf8')) as { traceEvents: TraceEvent[] }).traceEvents;
    // content.js only: the trace also holds the extension's service worker (background.js), which
    // runs in its own thread, not on the page's main thread.
    const contentScript = `${extensionOrigin}/content.js`;
    const ours = (e: TraceEvent) => (e.args?.data?.url ?? e.args?.data?.scriptName ?? '') === contentScript;
    const kinds = new Set(['EvaluateScript', 'FunctionCall', 'v8.compile', 'v8.callFunction', 'V8.CompileCode', 'v8.run']);
    const spans = events.filter((e) => e.ph === 'X' && kinds.has(e.name) && ours(e) && e.dur !== undefined).sort((a, b) => a.ts - b.ts);
    // Outermost spans only, per thread: a FunctionCall inside another of ours is not counted twice.
    let total = 0;
    let tasks = 0;
    let wall = 0;
    const byKind: Record<string, number> = {};
    const endByThread = new Map<string, number>();
    for (const e of spans) {
      const key = `${e.pid}:${e.tid}`;
      if ((endByThread.get(key) ?? -1) >= e.ts + e.dur!) continue;
      // CPU time of the main thread (tdur): on a loaded machine wall time (dur) also counts waiting for a core.
      const cpu = e.tdur ?? e.dur!;
      total += cpu;
      wall += e.dur!;
      tasks += 1;
      byKind[e.name] = (byKind[e.name] ?? 0) + cpu / 1000;
      endByThread.set(key, e.ts + e.dur!);
    }
    return { ms: total / 1000, wallMs: wall / 1000, tasks, byKind };
  } finally {
    await p.close();
  }
}

async function measuredByExtension(browser: Browser, origin: string, host: string): Promise<number> {
  const p = await browser.newPage();
  await p.goto(`${origin}/popup/index.html`);
  const recent = (await p.evaluate(`chrome.storage.local.get('recent').then((v) => v.recent ?? [])`)) as { host: string }[];
  await p.close();
  return recent.filter((r) => ORIGINS.includes(r.host) || r.host === host).length;
}

async function main(): Promise<void> {
  if (!existsSync(join(EXTENSION_DIR, 'manifest.json'))) throw new Error(`no extension build at ${EXTENSION_DIR}: run pnpm --filter @tlsrum/extension build`);
  console.log(`extension-overhead benchmark: ${RESOURCES} resources from ${ORIGINS.length} origins, new TLS connection each, ${RUNS} runs with and ${RUNS} without, alternating; ${machine()}`);
  const dir = mkdtempSync(join(tmpdir(), 'tlsrum-bench-ext-'));
  const browsers: Browser[] = [];
  let server: Server | undefined;
  try {
    const tls = certificate(dir);
    const started = await startServer(tls);
    server = started.server;
    const url = `https://${ORIGINS[0]}:${started.port}/`;
    const without = await launch(join(dir, 'without'), tls.spki, false);
    browsers.push(without);
    const withExt = await launch(join(dir, 'with'), tls.spki, true);
    browsers.push(withExt);
    const extensionOrigin = await optIn(withExt);

    // Warm-up: first loads pay for process start and code caches.
    for (let i = 0; i < 3; i++) {
      await loadOnce(without, url);
      await loadOnce(withExt, url);
    }
    const times = { with: [] as number[], without: [] as number[] };
    for (let i = 0; i < RUNS; i++) {
      // Alternate which goes first, so neither always follows the other.
      if (i % 2) {
        times.with.push(await loadOnce(withExt, url));
        times.without.push(await loadOnce(without, url));
      } else {
        times.without.push(await loadOnce(without, url));
        times.with.push(await loadOnce(withExt, url));
      }
    }
    const traced: { ms: number; wallMs: number; tasks: number; byKind: Record<string, number> }[] = [];
    for (let i = 0; i < TRACED; i++) traced.push(await tracedLoad(withExt, url, extensionOrigin));
    const measured = await measuredByExtension(withExt, extensionOrigin, ORIGINS[0]!);
    if (measured === 0) throw new Error('the extension measured nothing: is the content script registered (opt-in)?');

    const loadRatio = median(times.with) / median(times.without);
    const mainThreadMs = median(traced.map((t) => t.ms));
    printTable('loadEventEnd, ms', [
      { browser: 'without extension', p50: round(median(times.without), 1), p90: round(quantile(times.without, 0.9), 1), runs: times.without.length },
      { browser: 'with extension (opted in)', p50: round(median(times.with), 1), p90: round(quantile(times.with, 0.9), 1), runs: times.with.length },
    ]);
    printTable('content script main-thread time per page (trace)', [
      { 'CPU p50 ms': round(mainThreadMs, 3), 'wall p50 ms': round(median(traced.map((t) => t.wallMs)), 3), 'CPU max ms': round(Math.max(...traced.map((t) => t.ms)), 3), 'script tasks p50': median(traced.map((t) => t.tasks)), pages: traced.length, 'connections in extension log': measured },
    ]);
    const kinds = [...new Set(traced.flatMap((t) => Object.keys(t.byKind)))];
    printTable('content script CPU time by trace event (outermost spans), median ms per page', [Object.fromEntries(kinds.map((k) => [k, round(median(traced.map((t) => t.byKind[k] ?? 0)), 3)]))]);
    console.log(`\nload ratio with/without: ${round(loadRatio, 3)} (goal ≤ 1.01); content script ${round(mainThreadMs, 3)} ms per page (goal < 1)`);
    printResult({
      bench: 'extension-overhead',
      loadRatio: round(loadRatio, 3),
      mainThreadMs: round(mainThreadMs, 3),
      mainThreadMaxMs: round(Math.max(...traced.map((t) => t.ms)), 3),
      mainThreadWallMs: round(median(traced.map((t) => t.wallMs)), 3),
      loadP50WithMs: round(median(times.with), 1),
      loadP50WithoutMs: round(median(times.without), 1),
      runs: RUNS,
      tracedPages: traced.length,
    });
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
