/**
 * Beacon benchmark: the served script's gzip size and what it costs a page view, against the same page
 * without it, with an empty script loaded the same way (the fixed cost of any async third-party tag), with
 * a script that only calls sendBeacon once on hide (the browser's own cost of sending, in every beacon), and
 * with the `web-vitals` library (from the npm registry) measuring the same page and reporting on hide.
 *
 * The page: 50 resources from 5 origins on one local HTTPS server (*.bench.test, trusted by its SPKI
 * hash), every response with Timing-Allow-Origin and `Connection: close` — every resource opens a new TLS
 * connection to one of the site's hosts (`data-hosts`), the beacon's worst case: it reports all 50. The
 * scripts come from another origin (rum.bench.test), as from a collector; the page's own scripts touch the
 * document, as any real page's do. Chromium loads each variant in
 * rotation BENCH_BEACON_RUNS times (default 30): the ratio of loadEventEnd medians to the page without a
 * script. Then BENCH_BEACON_TRACED pages of each (default 10) are traced from navigation to the page being
 * hidden — the visitor leaves (a navigation away: the browser fires `visibilitychange` and `pagehide`) —
 * and the script's own main-thread CPU time is read from the trace (evaluation, compilation and
 * every call into it: listeners, observers). The beacon does its work in that hide handler; web-vitals
 * in its observers during the load and on hide.
 *
 *   pnpm bench:beacon
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer, type Server } from 'node:https';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';
import { buildServedScript } from '@tlsrum/beacon/build';
import { benchCertificate, benchHostArgs, CHROMIUM_ARGS, PNG } from './lib/bench-page';
import { machine, median, printResult, printTable, quantile, round } from './lib/report';
import { scriptCost, TRACE_CATEGORIES, type ScriptCost, type TraceEvent } from './lib/trace';

const RUNS = Number(process.env.BENCH_BEACON_RUNS ?? 30);
const TRACED = Number(process.env.BENCH_BEACON_TRACED ?? 10);
const RESOURCES = 50;
const ORIGINS = ['a', 'b', 'c', 'd', 'e'].map((h) => `${h}.bench.test`);
const RUM = 'rum.bench.test';
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

type Variant = 'without' | 'empty' | 'sendOnly' | 'beacon' | 'webVitals';
const VARIANTS: readonly Variant[] = ['without', 'empty', 'sendOnly', 'beacon', 'webVitals'];
const LABEL: Record<Variant, string> = {
  without: 'no script',
  empty: 'an empty async script',
  sendOnly: 'one sendBeacon on hide',
  beacon: 'the beacon',
  webVitals: 'web-vitals',
};
const SCRIPT_PATH: Record<Variant, string | null> = {
  without: null,
  empty: '/empty.js',
  sendOnly: '/send-only.js',
  beacon: '/beacon.js',
  webVitals: '/web-vitals.js',
};
/**
 * The floor of any beacon: a script that only posts a fixed body of the beacon's size (50 entries) with
 * sendBeacon when the page is hidden. The browser's own cost of that call is in every beacon's figure.
 */
const SEND_ONLY_BYTES = 6000;
const SEND_ONLY = `addEventListener('visibilitychange',function(){if(document.visibilityState==='hidden')navigator.sendBeacon('/v1/floor',${JSON.stringify('x'.repeat(SEND_ONLY_BYTES))});});`;

function page(port: number, variant: Variant): string {
  const items: string[] = [];
  for (let i = 0; i < RESOURCES; i++) {
    const origin = `https://${ORIGINS[i % ORIGINS.length]}:${port}`;
    items.push(
      i % 10 === 9
        ? `<script src="${origin}/r/${i}.js"></script>`
        : `<img src="${origin}/r/${i}.png" width="1" height="1" alt="">`,
    );
  }
  const path = SCRIPT_PATH[variant];
  const tag = path
    ? `<script async src="https://${RUM}:${port}${path}" data-site="${ORIGINS[0]}" data-hosts="${ORIGINS.slice(1).join(' ')}"></script>`
    : '';
  return `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>bench</title>${tag}</head><body><h1>50 resources</h1>${items.join('\n')}</body></html>`;
}

/** web-vitals as a site would use it: every metric, reported once with sendBeacon when the page is hidden. */
function webVitalsScript(): string {
  const require = createRequire(import.meta.url);
  // The package exports no path to its IIFE build: it sits beside the main entry.
  const lib = readFileSync(join(dirname(require.resolve('web-vitals')), 'web-vitals.iife.js'), 'utf8');
  const reporter = `;(function(){var q=[];function add(m){q.push({name:m.name,value:m.value,id:m.id});}
webVitals.onCLS(add);webVitals.onFCP(add);webVitals.onINP(add);webVitals.onLCP(add);webVitals.onTTFB(add);
addEventListener('visibilitychange',function(){if(document.visibilityState==='hidden'&&q.length){navigator.sendBeacon('/v1/vitals',JSON.stringify(q));q=[];}});})();`;
  return lib + reporter;
}

interface Served {
  server: Server;
  port: number;
  beacons: () => number;
  /** bytes of the last beacon body received */
  beaconBytes: () => number;
}

async function startServer(tls: { key: Buffer; cert: Buffer }, scripts: Record<string, string>): Promise<Served> {
  let port = 0;
  let beacons = 0;
  let beaconBytes = 0;
  const server = createServer({ ...tls, keepAlive: false }, (req, res) => {
    const headers = {
      'timing-allow-origin': '*',
      'cache-control': 'no-store',
      connection: 'close',
      'access-control-allow-origin': '*',
    };
    const host = (req.headers.host ?? '').split(':')[0];
    const path = req.url?.split('?')[0] ?? '/';
    if (req.method === 'POST') {
      let bytes = 0;
      req.on('data', (chunk: Buffer) => (bytes += chunk.length));
      req.on('end', () => {
        if (path === '/v1/beacon') [beacons, beaconBytes] = [beacons + 1, bytes];
        res.writeHead(202, headers).end();
      });
    } else if (host === RUM && scripts[path] !== undefined)
      res.writeHead(200, { ...headers, 'content-type': 'text/javascript' }).end(scripts[path]);
    else if (path.startsWith('/page/'))
      res.writeHead(200, { ...headers, 'content-type': 'text/html' }).end(page(port, path.slice(6) as Variant));
    else if (path.endsWith('.js'))
      // The page's own scripts touch the document, as every real page's do: the binding cost of the first
      // touch is the page's, not the measured script's.
      res
        .writeHead(200, { ...headers, 'content-type': 'text/javascript' })
        .end('document.body.dataset.n = String(Number(document.body.dataset.n || 0) + 1);');
    else res.writeHead(200, { ...headers, 'content-type': 'image/png' }).end(PNG);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
  return { server, port, beacons: () => beacons, beaconBytes: () => beaconBytes };
}

async function launch(profile: string, spki: string): Promise<Browser> {
  mkdirSync(join(profile, 'Default'), { recursive: true });
  writeFileSync(join(profile, 'Default', 'Preferences'), JSON.stringify({ net: { network_prediction_options: 2 } }));
  return puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    pipe: true,
    userDataDir: profile,
    args: [...CHROMIUM_ARGS, ...benchHostArgs(spki)],
  });
}

// Page-side code as strings: this file is type-checked for Node, without the DOM types.
const SCRIPT_RAN = `new Promise((resolve) => { const t = setInterval(() => { if (performance.getEntriesByType('resource').some((e) => e.name.includes('${RUM}'))) { clearInterval(t); resolve(true); } }, 20); })`;

async function loadOnce(browser: Browser, url: string): Promise<number> {
  const p = await browser.newPage();
  try {
    await p.goto(url, { waitUntil: 'load' });
    const n = (await p.evaluate(
      `performance.getEntriesByType('resource').filter((e) => !e.name.includes('${RUM}')).length`,
    )) as number;
    if (n !== RESOURCES) throw new Error(`page loaded ${n} resources, expected ${RESOURCES}`);
    return (await p.evaluate(`performance.getEntriesByType('navigation')[0].loadEventEnd`)) as number;
  } finally {
    await p.close();
  }
}

async function tracedView(browser: Browser, url: string, scriptUrl: string | null): Promise<ScriptCost> {
  const p = await browser.newPage();
  try {
    await p.tracing.start({ categories: TRACE_CATEGORIES });
    await p.goto(url, { waitUntil: 'load' });
    if (scriptUrl) await p.evaluate(SCRIPT_RAN);
    // web-vitals reports LCP and CLS only after the page settles: give every variant the same time.
    await new Promise((r) => setTimeout(r, 500));
    // The visitor leaves: the browser hides the page and fires pagehide from its own task, so the trace
    // attributes the listeners' work to the script (an event dispatched from page.evaluate would not be).
    await p.goto('about:blank');
    await new Promise((r) => setTimeout(r, 200));
    const buf = await p.tracing.stop();
    if (process.env.BENCH_BEACON_TRACE_DIR && scriptUrl)
      writeFileSync(
        join(process.env.BENCH_BEACON_TRACE_DIR, `trace-${scriptUrl.split('/').pop()}-${Date.now()}.json`),
        Buffer.from(buf!),
      );
    const events = (JSON.parse(Buffer.from(buf!).toString('utf8')) as { traceEvents: TraceEvent[] }).traceEvents;
    return scriptUrl ? scriptCost(events, scriptUrl) : { ms: 0, wallMs: 0, tasks: 0, byKind: {} };
  } finally {
    await p.close();
  }
}

async function main(): Promise<void> {
  const served = await buildServedScript();
  console.log(
    `beacon benchmark: served script ${Buffer.byteLength(served.code)} bytes, ${served.gzipBytes} bytes gzip; ${RESOURCES} resources from ${ORIGINS.length} of the site's hosts, new TLS connection each, ${RUNS} runs per variant, rotating; ${machine()}; load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  const dir = mkdtempSync(join(tmpdir(), 'tlsrum-bench-beacon-'));
  let browser: Browser | undefined;
  let server: Served | undefined;
  try {
    const tls = benchCertificate(dir);
    server = await startServer(tls, {
      '/empty.js': '/* bench baseline: an empty async script */\n',
      '/send-only.js': SEND_ONLY,
      '/beacon.js': served.code,
      '/web-vitals.js': webVitalsScript(),
    });
    const port = server.port;
    const url = (v: Variant) => `https://${ORIGINS[0]}:${port}/page/${v}`;
    const scriptUrl = (v: Variant) => (SCRIPT_PATH[v] ? `https://${RUM}:${port}${SCRIPT_PATH[v]}` : null);
    browser = await launch(join(dir, 'profile'), tls.spki);
    for (let i = 0; i < 3; i++) for (const v of VARIANTS) await loadOnce(browser, url(v));
    const times: Record<Variant, number[]> = { without: [], empty: [], sendOnly: [], beacon: [], webVitals: [] };
    for (let i = 0; i < RUNS; i++) {
      for (let k = 0; k < VARIANTS.length; k++) {
        const v = VARIANTS[(i + k) % VARIANTS.length]!;
        times[v].push(await loadOnce(browser, url(v)));
      }
    }
    const before = server.beacons();
    const traced: Record<Variant, ScriptCost[]> = { without: [], empty: [], sendOnly: [], beacon: [], webVitals: [] };
    for (let i = 0; i < TRACED; i++)
      for (const v of VARIANTS) traced[v].push(await tracedView(browser, url(v), scriptUrl(v)));
    const sent = server.beacons() - before;
    const load = loadavg();
    const p50 = (v: Variant) => median(times[v]);
    const cpu = (v: Variant) => median(traced[v].map((t) => t.ms));
    printTable(
      'loadEventEnd, ms',
      VARIANTS.map((v) => ({
        page: LABEL[v],
        p50: round(p50(v), 1),
        p90: round(quantile(times[v], 0.9), 1),
        'ratio to no script': round(p50(v) / p50('without'), 3),
        runs: times[v].length,
      })),
    );
    printTable(
      `the script's main-thread CPU per page view, ms (trace from navigation to hidden, ${TRACED} pages each)`,
      VARIANTS.filter((v) => v !== 'without').map((v) => ({
        script: LABEL[v],
        p50: round(cpu(v), 3),
        max: round(Math.max(...traced[v].map((t) => t.ms)), 3),
        tasks: median(traced[v].map((t) => t.tasks)),
      })),
    );
    for (const v of ['beacon', 'webVitals'] as const) {
      const kinds = [...new Set(traced[v].flatMap((t) => Object.keys(t.byKind)))];
      printTable(`${LABEL[v]}: CPU by trace event (outermost spans), p50 ms per page view`, [
        Object.fromEntries(kinds.map((k) => [k, round(median(traced[v].map((t) => t.byKind[k] ?? 0)), 3)])),
      ]);
    }
    console.log(
      `\nbeacon: ${round(cpu('beacon'), 3)} ms per page view (goal < 0.5 and below web-vitals' ${round(cpu('webVitals'), 3)}), of which the browser's own sendBeacon call is ${round(cpu('sendOnly'), 3)} (a script that only sends a body of ${SEND_ONLY_BYTES} bytes on hide; the beacon's was ${server.beaconBytes()}); load ratio ${round(p50('beacon') / p50('without'), 3)} (goal within the empty script's ${round(p50('empty') / p50('without'), 3)}); ${sent} beacons received from ${TRACED} traced views; load average ${load.map((l) => l.toFixed(2)).join(' ')}`,
    );
    if (sent < TRACED) throw new Error(`the beacon reported ${sent} of ${TRACED} traced page views: it did not run`);
    printResult({
      bench: 'beacon',
      gzipBytes: served.gzipBytes,
      mainThreadMs: round(cpu('beacon'), 3),
      webVitalsMainThreadMs: round(cpu('webVitals'), 3),
      loadRatio: round(p50('beacon') / p50('without'), 3),
      emptyScriptLoadRatio: round(p50('empty') / p50('without'), 3),
      webVitalsLoadRatio: round(p50('webVitals') / p50('without'), 3),
      emptyScriptMainThreadMs: round(cpu('empty'), 3),
      sendOnlyMainThreadMs: round(cpu('sendOnly'), 3),
      beaconBodyBytes: server.beaconBytes(),
      loadP50Ms: Object.fromEntries(VARIANTS.map((v) => [v, round(p50(v), 1)])),
      runs: RUNS,
      tracedPages: TRACED,
      loadAverage: load.map((l) => round(l, 2)),
    });
  } finally {
    await browser?.close().catch(() => undefined);
    server?.server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
