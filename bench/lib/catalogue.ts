/**
 * What each bench measures, how to run it, its baseline and goal, and which of its figures BENCHMARKS.md
 * shows: said once, here. `pnpm bench report` reads it (with bench/results.jsonl) to write BENCHMARKS.md,
 * and each bench file's header points here instead of repeating it.
 */

type Figures = Record<string, unknown>;

export interface BenchEntry {
  /** The `bench` value of the bench's JSON line. */
  name: string;
  /** The bench file under bench/ that prints it. */
  file: string;
  /** The command that runs it from the repository root. */
  command: string;
  /** Settings worth knowing, as `VARIABLE (default): what it changes`. */
  options?: string[];
  /** What it measures and how, for a reader who has not opened the file. */
  measures: string;
  /** What the figure is compared with in the same run. */
  baseline: string;
  goal: string;
  /** The headline figures of one JSON line, in words; '—' for a figure the line does not hold. */
  figures: (r: Figures) => string;
}

/** A number as BENCHMARKS.md writes it: thousands grouped with spaces, '—' when absent. */
export function num(x: unknown, unit = ''): string {
  if (typeof x !== 'number' || !Number.isFinite(x)) return '—';
  const [int, frac] = String(Math.abs(x)).split('.') as [string, string | undefined];
  const grouped = int.length > 4 ? int.replace(/\B(?=(\d{3})+(?!\d))/g, ' ') : int;
  return `${x < 0 ? '−' : ''}${grouped}${frac ? `.${frac}` : ''}${unit}`;
}

/** The rollup-served shapes of a line (`shapes`): how many, and their mean p95 — a figure that moves when most of them do. */
function rollupShapes(r: Figures): { n: number; meanP95: number } | undefined {
  const shapes = r.shapes;
  if (!shapes || typeof shapes !== 'object') return undefined;
  const p95s = Object.values(shapes as Record<string, { path?: string; p95?: number }>)
    .filter((x) => x.path === 'rollup' && typeof x.p95 === 'number')
    .map((x) => x.p95!);
  if (p95s.length === 0) return undefined;
  return { n: p95s.length, meanP95: Math.round((p95s.reduce((a, b) => a + b, 0) / p95s.length) * 10) / 10 };
}

/** ", most of them: 503 the spool is full …" — the reason most refused requests were given, when the line names reasons. */
function mostly(reasons: unknown): string {
  if (!reasons || typeof reasons !== 'object') return '';
  const top = Object.entries(reasons as Record<string, number>).sort((a, b) => b[1] - a[1])[0];
  return top ? `, most of them: "${top[0]}"` : '';
}

const get = (r: Figures, path: string): unknown =>
  path.split('.').reduce<unknown>((o, k) => (o && typeof o === 'object' ? (o as Figures)[k] : undefined), r);

/** The option of every bench that generates demo records (bench/lib/store-child.ts). */
const VISIT_RECORDS_OPTION =
  'BENCH_VISIT_RECORDS (1): records per visit of a generated client, sent as one batch (`pnpm demo` uses 8); 1: every record from its own visit, the most clients and bytes';

export const BENCHES: readonly BenchEntry[] = [
  {
    name: 'ingest',
    file: 'ingest.ts',
    command: 'pnpm bench ingest',
    options: [
      'BENCH_SECONDS (30), BENCH_WARMUP_SECONDS (5): length of each measured run',
      'BENCH_PROFILE_DIR: also write a V8 CPU profile of the collector there',
    ],
    measures:
      'A load generator in its own process (autocannon) sends gzip batches of 20 records over 50 connections, first to a bare ' +
      '`node:http` server that only reads the body (the ceiling), then to the real collector with its embedded store and durable ' +
      "spool, each for BENCH_SECONDS after a warm-up. It reports records/s of both and their ratio, latency, the collector's CPU " +
      "(µs of CPU per record, the figure the machine's load moves least) and peak memory, and after a graceful stop checks that " +
      'every acknowledged record is stored exactly once.',
    baseline: 'a bare `node:http` server reading the body',
    goal: 'ratio ≥ 0.5, p99 < 100 ms, RSS < 1 GiB, 0 lost',
    figures: (r) =>
      `ratio ${num(r.ratio)}, ${num(r.recordsPerSec)} records/s, ${num(r.usPerRecord, ' µs')} CPU/record, p99 ${num(r.p99Ms, ' ms')}, RSS ${num(r.rssMiB, ' MiB')}, lost ${num(r.lost)}` +
      (typeof r.non2xx === 'number' && r.non2xx > 0
        ? `, ${num(r.non2xx)} requests refused (not 2xx)${mostly(r.refusedBy)}`
        : ''),
  },
  {
    name: 'ingest-probing',
    file: 'ingest-probing.ts',
    command: 'pnpm bench ingest-probing',
    options: [
      'BENCH_SECONDS (20), BENCH_WARMUP_SECONDS (5)',
      'BENCH_PROFILE_DIR: V8 CPU profiles of the collectors under on/ and off/',
    ],
    measures:
      "Whether the probe scheduler slows ingest: the ingest bench's load against two collectors that differ only in probing — " +
      'one with PROBE_INTERVAL_MS=0, one probing 8 registered sites every 2 s (3 cold runs, both TLS versions, resumption and an ' +
      'HTTP request each: far more often than the hourly default, so any interference shows). Runs alternate off/on twice so ' +
      'drift on a shared machine hits both; medians per setting.',
    baseline: 'the same collector with probing off',
    goal: 'records/s on/off within noise, p99 unchanged',
    figures: (r) =>
      `records/s on/off ${num(r.ratio)}, p99 ${num(r.p99MsOff)} → ${num(r.p99MsOn, ' ms')}, CPU/record ${num(r.usPerRecordOff)} → ${num(r.usPerRecordOn, ' µs')}`,
  },
  {
    name: 'wire-size',
    file: 'wire-size.ts',
    command: 'pnpm bench wire-size',
    measures:
      'Bytes per record on the wire for batches of 10, 50 and 200 records as the extension sends them (the batch JSON, gzip at ' +
      "the default level like the browser's CompressionStream), against plain JSON and against shipping the raw timing entries " +
      '(PerformanceResourceTiming.toJSON(), URLs included) as a naive beacon would.',
    baseline: 'plain JSON of the same records',
    goal: '≤ 40 B/record gzip at 50',
    figures: (r) =>
      `${num(r.bytesPerRecordGzip50, ' B')}/record gzip at 50 (plain ${num(r.bytesPerRecordPlain50, ' B')}; ${num(r.bytesPerRecordGzip10, ' B')} at 10, ${num(r.bytesPerRecordGzip200, ' B')} at 200)`,
  },
  {
    name: 'insert-format',
    file: 'insert-format.ts',
    command: 'pnpm bench insert-format',
    options: ['BENCH_ROUNDS (15), BENCH_FLUSH_ROWS (10 000)'],
    measures:
      'What one insert of a flush block costs in each text format the embedded store accepts, split into encoding (JavaScript, ' +
      'in the request path) and the insert itself (the store parsing and writing a part). Formats are interleaved round by round; ' +
      'medians, and ratios against JSONEachRow in the same run. Checks every insert was stored.',
    baseline: 'JSONEachRow inserts of the same rows',
    goal: '— (diagnosis for ingest)',
    figures: (r) =>
      `TabSeparated / JSONEachRow: insert ${num(r.tsvInsertRatio)}, encode + insert ${num(r.tsvTotalRatio)} (${num(r.rowsPerInsert)} rows per insert)`,
  },
  {
    name: 'query',
    file: 'query.ts',
    command: 'pnpm bench query',
    options: [
      'BENCH_QUERY_ROWS (10 000 000), BENCH_QUERY_ROUNDS (50)',
      'BENCH_QUERY_DATA_DIR: fill (or reuse) that folder and keep it',
      VISIT_RECORDS_OPTION,
      'BENCH_QUERY_TREE: the collector of another checkout answers the API phases (before/after on identical records)',
      'BENCH_PROFILE_DIR: a V8 CPU profile of the collector',
    ],
    measures:
      "Generates BENCH_QUERY_ROWS records over 30 days (53 countries, the demo's sites) into a fresh store with the demo " +
      'generator, then runs the compare, map and timeseries queries over the 30 days on the raw table and on the rollup: ' +
      "directly on the store (the SQL the API builds, in a child process), through the collector's HTTP API, then directly " +
      "again. The API/direct ratio is the API's own cost. Then every query shape the dashboard and the API issue (see " +
      '`query-shapes`).',
    baseline: 'the same SQL run directly on the store (API/direct); the raw table (rollup/raw)',
    goal: 'p95 < 100 ms, rollup < 20 ms',
    figures: (r) => {
      const shapes = r.shapes as Record<string, { path?: string }> | undefined;
      // A full run also times every shape (`query-shapes`): the slowest, how many miss the goal, how many read raw.
      const everyShape = shapes
        ? `; every shape: slowest p95 ${num(r.shapesP95Ms, ' ms')}, ${num(r.shapesOver100Ms)} of ${num(Object.keys(shapes).length)} at or over 100 ms, ${num(Object.values(shapes).filter((s) => s.path === 'raw').length)} read the raw table`
        : '';
      return `raw API p95 ${num(r.p95Ms, ' ms')}, rollup API p95 ${num(r.rollupP95Ms, ' ms')}, API/direct ${num(r.apiToDirectRatio)}, rollup/raw ${num(r.rollupToRawRatio)} (${num(r.rows)} records)${everyShape}`;
    },
  },
  {
    name: 'dashboard',
    file: 'dashboard.ts',
    command: 'pnpm bench dashboard',
    options: [
      "BENCH_ROWS (1 200 000, the demo's size; 10 000 000 for 10 M)",
      'BENCH_DASHBOARD_LOADS (20) loads per view, BENCH_DASHBOARD_TIMEOUT_MS (60 000) per load',
      'BENCH_DASHBOARD_DATA_DIR: fill (or reuse) that folder and keep it',
      VISIT_RECORDS_OPTION,
      'BENCH_DASHBOARD_TREE: the collector and built dashboard of another checkout (before/after on the same kept store)',
      "BENCH_DASHBOARD_RANGE (7d, the dashboard's default): the range shown, 24h, 7d or 30d",
      "BENCH_DASHBOARD_NETWORK: load over a connection Chromium emulates, down/up/rtt in Mbit/s, Mbit/s and ms (20/5/40: a home connection); unset, this machine's loopback, over which the goal is stated",
      'CHROMIUM_PATH (/usr/bin/chromium)',
    ],
    measures:
      "Generates BENCH_ROWS records over 30 days with the demo generator, merges the closed months (the rollups' and the " +
      "what-if's client sample's) into one part each as a running collector does (COMPACT_CLOSED_MONTHS), starts the " +
      'collector on them serving the built dashboard, and loads the dashboard in Chromium as a new visitor would ' +
      '(a fresh browser context each time: no cache), ' +
      "BENCH_DASHBOARD_LOADS times each for the all-sites view and for one demo site's view with its read token, after one " +
      'uncounted load per view. Each load is timed from navigation until the page says every panel has settled ' +
      "(`data-panels` on <body>); the panels that failed (after their own retry) are counted. A table shows the page's own " +
      'work in the loads with kept answers, read from its performance timeline: each panel drawing its answer and creating ' +
      'its charts (until it returns or first waits), and when the last answer arrived. Another shows where the time goes ' +
      'with nothing kept: each kind of request a load makes (API route and dimensions), slowest first. Two passes over the same ' +
      'store: the collector as it runs by default (answers kept `ANSWER_CACHE_SECONDS`, then served while refreshed for ' +
      '`ANSWER_STALE_SECONDS`, so a load of a view in use reads kept answers: p50, p95) and with nothing kept (every load ' +
      'works out every answer, as the first visitor of a view nobody has looked at for those two minutes does: coldP50, ' +
      'coldP95). A third table replays each request of the last such load alone, one after another: the work behind a ' +
      'load without the contention of its own burst, request by request; coldWorkMs is its sum for the heavier view. ' +
      "firstLoadMs: the slower of the two uncounted first loads of the default pass, right after the collector's start, " +
      "while its start-up reads (the per-client cap's counts of the open days, the site profiles) run beside it: what a " +
      'person opening the dashboard just after a restart meets.',
    baseline: "the goal (p95 / goal: 1 500 ms at the demo's size, 2 000 ms at 10 M)",
    goal: "p95 ≤ 1 500 ms at the demo's size, ≤ 2 000 ms at 10 M; 0 failed panels",
    figures: (r) =>
      `${r.network === undefined ? '' : `over ${String(r.network)} (Mbit/s down / up, ms): `}${r.range === undefined ? '' : `the last ${String(r.range)}: `}p50 ${num(r.p50Ms, ' ms')}, p95 ${num(r.p95Ms, ' ms')}; nothing kept: p50 ${num(r.coldP50Ms, ' ms')}, p95 ${num(r.coldP95Ms, ' ms')}${r.coldWorkMs === undefined ? '' : `, its requests alone ${num(r.coldWorkMs, ' ms')}`}${r.firstLoadMs === undefined ? '' : `; first load after the start ${num(r.firstLoadMs, ' ms')}`}; ${num(r.failedPanels)} failed panels over ${num(r.loads)} loads (${num(r.rows)} records)`,
  },
  {
    name: 'read-isolation',
    file: 'read-isolation.ts',
    command: 'pnpm bench read-isolation',
    options: [
      "BENCH_ROWS (1 200 000, the demo's size; 10 000 000 for 10 M)",
      'BENCH_ISOLATION_RUNS (40) light questions per phase, BENCH_ISOLATION_HEAVY (3) heavy askers at once',
      'BENCH_ISOLATION_DATA_DIR: fill (or reuse) that folder and keep it (a store bench:query kept will do)',
      VISIT_RECORDS_OPTION,
      'BENCH_ISOLATION_TREE: the collector of another checkout (before/after on the same kept store)',
    ],
    measures:
      "Whether the dashboard's light questions stay fast while others ask the heaviest questions allowed without a token, " +
      "and while the collector's own start-up reads run. Starts the collector on a store of BENCH_ROWS demo records " +
      "(answers not kept, rate limits off), then times the dashboard's default view's light questions (summary, stack by " +
      'mode, map, daily series by stack), one after another: right after the collector is ready (its start-up reads — the ' +
      "per-client cap's counts of the open days, the site profiles — beside them, the store's caches cold: started), " +
      'alone, then while BENCH_ISOLATION_HEAVY askers each keep asking a month of the raw table (country × browser) and the ' +
      'largest tokenless what-if (100 000 connections over 31 days) in turn, then alone again. Light answers that were not ' +
      "200 are counted as failed; the heavy ones' statuses are listed.",
    baseline: 'the same light questions alone, before and after, in the same run',
    goal: 'light questions beside heavy ones, and right after the start, at most 2× slower (p50 and p95), none failed',
    figures: (r) =>
      `light questions beside ${num(r.heavyAskers)} heavy askers: p50 ${num(r.loadedP50Ms, ' ms')} (× ${num(r.ratioP50)} alone), p95 ${num(r.loadedP95Ms, ' ms')} (× ${num(r.ratioP95)}); alone p50 ${num(r.aloneP50Ms, ' ms')}, p95 ${num(r.aloneP95Ms, ' ms')}${r.startedP95Ms === undefined ? '' : `; right after the start p50 ${num(r.startedP50Ms, ' ms')}, p95 ${num(r.startedP95Ms, ' ms')} (× ${num(r.startedRatioP95)}), slowest ${num(r.startedMaxMs, ' ms')}`}; ${num(r.lightFailed)} failed (${num(r.rows)} records)`,
  },
  {
    name: 'query-shapes',
    file: 'query.ts',
    command: 'BENCH_QUERY_DATA_DIR=/tmp/store BENCH_QUERY_SHAPES_ONLY=1 pnpm bench query',
    options: ['BENCH_QUERY_SHAPES: only the shapes whose name matches this regular expression'],
    measures:
      'Every query shape the dashboard and the API issue, derived from the query catalogue (each dimension, each filter on each ' +
      "dashboard panel, country × each dimension, daily and hourly series, the dashboard's what-if of 50 000 connections), " +
      'through the API over 30 days with `table` left to the collector as the dashboard asks; each reported with the path ' +
      '(rollup or raw, or `whatif`) that served it, and its first run apart (`first`, left out of the figures like every ' +
      "bench's warm-up: a time series reads every closed bucket then, later runs only those it lacks). A store the bench " +
      'generates has its closed months merged as a running ' +
      'collector keeps them (COMPACT_CLOSED_MONTHS); a kept store is read as it is. Part of every ' +
      '`pnpm bench query` run; alone on a kept store it takes minutes instead of ten.',
    baseline: '— (the goal is absolute)',
    goal: 'every shape p95 < 100 ms',
    figures: (r) => {
      const rollup = rollupShapes(r);
      const whatif = (r.shapes as Record<string, { p95?: number }> | undefined)?.whatif?.p95;
      // A run of a few shapes may hold none the rollup served: then nothing is said of them.
      const noneServed = typeof r.shapes === 'object' && r.shapes !== null && !rollup;
      return (
        `slowest shape p95 ${num(r.shapesP95Ms, ' ms')}; ${num(r.shapesOver100Ms)} shapes at or over 100 ms` +
        (noneServed ? '' : `; the ${num(rollup?.n)} the rollup served: mean p95 ${num(rollup?.meanP95, ' ms')}`) +
        (whatif === undefined ? '' : `; the what-if p95 ${num(whatif, ' ms')}`)
      );
    },
  },
  {
    name: 'scaling',
    file: 'scaling.ts',
    command: 'pnpm bench scaling',
    options: [
      'BENCH_SCALING_LEVELS (1 M, 10 M, 30 M, 50 M records)',
      'BENCH_SCALING_BUDGET_S (1500): sizes whose generation would not fit are skipped and listed (on 2 cores reaching 50 M takes 20–36 minutes, as fast as the machine runs: a slow one needs a larger budget)',
      VISIT_RECORDS_OPTION,
    ],
    measures:
      "One store grown in steps, and at each size the cost of a 10 000-row insert (JSONEachRow and TabSeparated), of the API's " +
      'queries over 30 days on the raw table and on the rollup, and the bytes per record on disk (the raw table alone, and with every rollup). Every figure is a ratio of how ' +
      "cost grows with data. Each size's new records are generated into a staging copy of the raw table, rolled up into every rollup " +
      "as the migration runner fills a rollup: the views' SELECT over a few whole days at a time, histograms counted from sorted " +
      "bucket indices (the µs per record it took is shown: the rollups' share of growing a store), then " +
      'attached to the raw table. Then, as a running collector does within the hour, the closed months of each rollup (and ' +
      "of the what-if's client sample) are merged " +
      'into one part (the store bench:query reads; the seconds it took are shown); the rollup queries are also timed just ' +
      'before that merge, so the run shows what it changes. The days of the month not yet closed ' +
      "stay in the parts the store's own merges settle at, so the figures depend a little on the day of the month the bench runs.",
    baseline: 'the smallest store size',
    goal: '— (how cost grows)',
    figures: (r) => {
      const levels = Array.isArray(r.levels) ? (r.levels as Figures[]) : [];
      const last = levels.at(-1);
      return (
        `up to ${num(last?.rows)} records: raw query × ${num(r.rawQueryGrowth)} (${num(last?.rawQueryMs, ' ms')}), rollup × ${num(r.rollupQueryGrowth)} (${num(last?.rollupQueryMs, ' ms')}` +
        (typeof r.rollupQueryGrowthUnmerged === 'number'
          ? `; the same run before the closed months were merged: × ${num(r.rollupQueryGrowthUnmerged)}, ${num(last?.rollupQueryMsUnmerged, ' ms')}`
          : '') +
        `), TabSeparated insert ${num(last?.insertTsvUsPerRow, ' µs')}/row, ${num(last?.bytesPerRowOnDisk, ' B')}/record on disk` +
        (last?.bytesPerRowAllTables === undefined
          ? ' (raw table only)'
          : ` in the raw table, ${num(last.bytesPerRowAllTables, ' B')} with every rollup`) +
        (last?.rollupBuildUsPerRecord === undefined
          ? ''
          : `; rolling a size's records up: ${num(last.rollupBuildUsPerRecord, ' µs')}/record`) +
        (Array.isArray(r.skipped) && r.skipped.length
          ? `; not reached in the budget: ${(r.skipped as number[]).map((n) => num(n)).join(', ')}`
          : '')
      );
    },
  },
  {
    name: 'extension-overhead',
    file: 'extension-overhead.ts',
    command: 'pnpm bench extension-overhead',
    options: [
      'BENCH_EXT_RUNS (30) page loads per variant, BENCH_EXT_TRACED (10) traced pages per variant',
      'BENCH_EXT_TRACE_DIR: keep the raw traces',
    ],
    measures:
      'A local HTTPS page with 50 resources from 5 origins, every response with Timing-Allow-Origin and `Connection: close` (every ' +
      'resource a new TLS connection: the worst case for the extension), loaded in rotation by three Chromium instances — without ' +
      "the extension, with it opted in but its content script emptied (Chromium's fixed cost of injecting any content script), " +
      'and with it opted in. Reports the ratio of the page-load medians to the one without, and per traced page the main-thread ' +
      "CPU time of the content script and of the renderer's whole main thread. Fails if the extension measured nothing.",
    baseline: 'the same page in Chromium without the extension',
    goal: 'load ratio ≤ 1.01, < 1 ms main thread per page',
    figures: (r) =>
      `load ratio ${num(r.loadRatio)} (empty content script ${num(r.emptyScriptLoadRatio)}), content script ${num(r.mainThreadMs, ' ms')} main thread per page (its own code ${num(r.ownMainThreadMs, ' ms')})`,
  },
  {
    name: 'beacon',
    file: 'beacon.ts',
    command: 'pnpm bench beacon',
    options: [
      'BENCH_BEACON_RUNS (30) page loads per variant, BENCH_BEACON_TRACED (10) traced pages per variant',
      'BENCH_BEACON_TRACE_DIR: keep the raw traces',
    ],
    measures:
      "The site beacon's cost to a page view. A local HTTPS page with 50 resources from 5 of the site's hosts, every response " +
      'with Timing-Allow-Origin and `Connection: close` (every resource a new TLS connection the beacon reports: its worst ' +
      'case), loaded by Chromium in rotation without a script, with an empty async script from another origin (the fixed cost ' +
      "of any tag), with a script that only calls sendBeacon once on hide with a body of the beacon's size (the floor of any " +
      "beacon: the browser's own cost of the call), with the beacon, and with the `web-vitals` library measuring the same " +
      'page and reporting on hide. Reports ' +
      "the served script's gzip size, the ratio of page-load medians to the page without a script, and the script's own " +
      'main-thread CPU per page view, read from a trace from navigation to the page being hidden (evaluation, compilation and ' +
      'every call into it). Fails if the beacon sent nothing.',
    baseline: 'the same page without a script, with an empty script, with one bare sendBeacon, and with web-vitals',
    goal: "gzip ≤ 2 048 bytes; main thread < 0.5 ms and below web-vitals; load ratio within the empty script's",
    figures: (r) =>
      `${num(r.gzipBytes, ' bytes')} gzip, ${num(r.mainThreadMs, ' ms')} main thread per page view (web-vitals ${num(r.webVitalsMainThreadMs, ' ms')}, one bare sendBeacon ${num(r.sendOnlyMainThreadMs, ' ms')}), load ratio ${num(r.loadRatio)} (empty script ${num(r.emptyScriptLoadRatio)})`,
  },
  {
    name: 'disk-size',
    file: 'disk-size.ts',
    command: 'pnpm bench disk-size [rows]',
    measures:
      "Bytes per stored record on disk after compression, for capacity planning (docs/cluster.md): generates the ingest bench's " +
      "records (batches of one client, 40 countries, 30 days; 1 000 000 by default), stores them through the collector's own " +
      'row mapping and migrations in a fresh embedded store, merges the parts as background merges eventually would and reads ' +
      "the store's part sizes: the raw table and every rollup its views fill, per stored record.",
    baseline: 'uncompressed bytes of the same rows',
    goal: '— (capacity planning)',
    figures: (r) =>
      (r.bytesPerRecordAllTables === undefined
        ? ''
        : `${num(r.bytesPerRecordAllTables, ' B')}/record on disk with every rollup; raw table `) +
      `${num(r.bytesPerRowOnDisk, ' B')}/record on disk (${num(r.bytesPerRowUncompressed, ' B')} uncompressed, ratio ${num(r.ratio)}; ${num(r.rows)} records)`,
  },
  {
    name: 'cap-cost',
    file: 'cap-cost.ts',
    command: 'pnpm bench cap-cost generate && pnpm bench cap-cost',
    options: [
      'BENCH_CAP_DIR (/tmp/capq), BENCH_CAP_ROWS (3 000 000), BENCH_CAP_ROUNDS (5), BENCH_CAP_RANGES (30,3 days)',
      "BENCH_CAP_CLIENTS: spread each day's records over this many clients (heavy clients, whose records the cap removes)",
    ],
    measures:
      'What the per-client cap costs on the raw path, directly on the store: the compare query the API builds, over the last 30 ' +
      'and 3 days, without the cap (`uncapped`), as figures of whole days read it (`after`: the rows ingest marked over the cap ' +
      'left out) and with the read-time cap per query cell that hourly cells use (`exact`, `exact-days`). Variants alternate ' +
      "round by round; medians; each capped variant's kept rows and answer are checked against `exact`. `generate` fills the " +
      'store with demo records plus four flooding clients and marks what ingest would have marked.',
    baseline: 'the same raw-table query without the cap',
    goal: 'capped / uncapped ≤ 1.1',
    figures: (r) =>
      `capped/uncapped ${num(get(r, 'afterToUncapped.30d'))} over 30 days, ${num(get(r, 'afterToUncapped.3d'))} over 3 (${num(r.rows)} records)`,
  },
  {
    name: 'rollup-view-cost',
    file: 'rollup-view-cost.ts',
    command: 'pnpm bench rollup-view-cost',
    options: ['BENCH_VIEW_ROUNDS (8), BENCH_VIEW_ROWS (10 000)'],
    measures:
      "What the rollup's materialized view costs per record at ingest: TabSeparated blocks of the flush size inserted into one " +
      "fresh store with no view, with the older four-cut view and with the current cut view (the migrations' own statements), " +
      'one at a time, alternated round by round; medians of µs per record.',
    baseline: 'the same inserts with no view',
    goal: '— (ingest cost of the rollup)',
    figures: (r) => {
      const us = (get(r, 'usPerRecord') ?? {}) as Record<string, unknown>;
      return `${
        Object.entries(us)
          .map(([view, v]) => `${view} ${num(v, ' µs')}`)
          .join(', ') || '—'
      } per record (${num(r.rows)}-row inserts)`;
    },
  },
];
