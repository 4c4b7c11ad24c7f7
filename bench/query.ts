/** The query (and query-shapes) bench. What it measures, how to run it and its settings: its entry in lib/catalogue.ts (shown in BENCHMARKS.md). */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, stop, TIMED_COLLECTOR_ENV } from './lib/processes';
import { spawnTs } from '@tlsrum/collector/test/node-process';
import { queryShapes, shapeUrl } from './lib/query-shapes';
import { apiUrl, MIN_ROUNDS, QUERY_SPECS, TABLES } from './lib/query-specs';
import { machine, median, printResult, printTable, quantile, round } from './lib/report';
import { commitOf } from './lib/results';
import { runStoreWorker, seedDemoStore, visitRecordsField } from './lib/store-child';
import { describeLoad, loadAverage } from './lib/load';

const ROWS = Number(process.env.BENCH_QUERY_ROWS ?? 10_000_000);
const ROUNDS = Number(process.env.BENCH_QUERY_ROUNDS ?? 50);
// A query/table/path stops after this many seconds (at least 3 runs): keeps the whole run under
// 10 minutes on a slow or loaded machine; the table says how many runs each figure is from.
const SERIES_BUDGET_S = Number(process.env.BENCH_QUERY_SERIES_BUDGET_S ?? 12);
const DAYS = 30;
// BENCH_PROFILE_DIR=/tmp/prof also writes a V8 CPU profile of the collector there (open in Chrome DevTools).
const PROFILE = process.env.BENCH_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`] : [];
const DAY = 86_400_000;
const KEPT_DIR = process.env.BENCH_QUERY_DATA_DIR;
const SHAPES_ONLY = process.env.BENCH_QUERY_SHAPES_ONLY === '1';
const TREE = process.env.BENCH_QUERY_TREE ?? repoRoot;
// Per shape: fewer runs than the three main queries (there are ~40 shapes), at least MIN_ROUNDS each.
const SHAPE_ROUNDS = Number(process.env.BENCH_QUERY_SHAPE_ROUNDS ?? 20);
const SHAPE_BUDGET_S = Number(process.env.BENCH_QUERY_SHAPE_BUDGET_S ?? 4);
// A slow tree (seconds per raw query) can be measured with fewer runs per shape; the table says how many.
const SHAPE_MIN_RUNS = Number(process.env.BENCH_QUERY_SHAPE_MIN_RUNS ?? MIN_ROUNDS);
// BENCH_QUERY_SHAPES=regex: only the shapes whose name matches (e.g. a slow tree's raw shapes apart).
const SHAPE_FILTER = new RegExp(process.env.BENCH_QUERY_SHAPES ?? '');

function startCollector(dataDir: string): ReturnType<typeof spawnTs> {
  const env = {
    ...TIMED_COLLECTOR_ENV,
    DATA_DIR: dataDir,
    // Every run works its answer out: a kept answer would time the collector's memory, not the query.
    ANSWER_CACHE_SECONDS: '0',
  };
  return spawnTs('collector/src/server.ts', {
    cwd: TREE,
    env,
    nodeArgs: PROFILE,
    ready: { serves: '/readyz' },
    timeoutMs: 600_000,
  });
}

interface ShapeRow {
  shape: string;
  path: string;
  /** The first run, the warm-up the figures leave out: a time series reads every closed bucket then (query/closed-buckets.ts). */
  first: number;
  runs: number;
  p50: number;
  p95: number;
  cells: number;
}

/** Each shape through the API: a warm-up, then up to SHAPE_ROUNDS runs or SHAPE_BUDGET_S seconds. */
async function measureShapes(dataDir: string, from: number, to: number): Promise<ShapeRow[]> {
  const collector = await startCollector(dataDir);
  const out: ShapeRow[] = [];
  try {
    for (const s of queryShapes().filter((x) => SHAPE_FILTER.test(x.name))) {
      const url = shapeUrl(collector.url, s, from, to);
      const times: number[] = [];
      let path = '';
      let cells = 0;
      let first = 0;
      const started = performance.now();
      for (let i = 0; i < SHAPE_ROUNDS + 1; i++) {
        if (times.length >= SHAPE_MIN_RUNS && performance.now() - started > SHAPE_BUDGET_S * 1000) break;
        const t0 = performance.now();
        const res = await fetch(url);
        const body = (await res.json()) as { cells?: unknown[]; regions?: unknown[]; table?: string; source?: string };
        const ms = performance.now() - t0;
        // A cell route answers cells and the table it read; the what-if, regions (its own path).
        const answered = body.cells ?? body.regions;
        if (res.status !== 200 || !answered?.length)
          throw new Error(`${url}: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
        path = body.source ?? body.table ?? (body.regions ? 'whatif' : '?');
        cells = answered.length;
        if (i >= 1) times.push(ms);
        else first = ms;
      }
      out.push({
        shape: s.name,
        path,
        first,
        runs: times.length,
        p50: median(times),
        p95: quantile(times, 0.95),
        cells,
      });
      console.log(
        `  ${s.name}: ${path}, first ${round(first, 1)} ms, p50 ${round(median(times), 1)} ms, p95 ${round(quantile(times, 0.95), 1)} ms (${times.length} runs; ${describeLoad()})`,
      );
    }
  } finally {
    await stop(collector);
  }
  return out;
}

async function main(): Promise<void> {
  console.log(
    `query benchmark: ${ROWS.toLocaleString('en')} records over ${DAYS} days, ${ROUNDS} runs per query and table; ${machine()}; ${describeLoad()}`,
  );
  const loadAtStart = loadAverage();
  const benchStarted = performance.now();
  if (KEPT_DIR) mkdirSync(KEPT_DIR, { recursive: true });
  const dataDir = KEPT_DIR ?? mkdtempSync(join(tmpdir(), 'tlsrum-bench-query-'));
  // Day-aligned: the rollups answer whole days for a month, so both tables cover exactly the same range.
  const end = Math.floor(Date.now() / DAY) * DAY;
  const from = end - DAYS * 86_400_000;
  try {
    if (SHAPES_ONLY) {
      if (!existsSync(join(dataDir, 'metadata'))) await seedDemoStore(dataDir, ROWS, end, DAYS);
      await shapesPhase(dataDir, from, end, loadAtStart, benchStarted);
      return;
    }
    const direct = await runStoreWorker({
      dataDir,
      targetRows: ROWS,
      end,
      days: DAYS,
      seed: 1,
      rounds: ROUNDS,
      seriesBudgetS: SERIES_BUDGET_S,
      insertRounds: 0,
      compactClosedMonths: true,
    });
    console.log(`direct queries done; ${describeLoad()}`);
    console.log(
      `generated ${direct.generatedRows.toLocaleString('en')} records in ${round(direct.generateSeconds, 1)} s (SQL INSERT … SELECT; of which ${round(direct.rollupSeconds, 1)} s rebuilding the daily rollup)`,
    );

    const api: Record<string, number[]> = {};
    const collector = await startCollector(dataDir);
    try {
      for (const spec of QUERY_SPECS) {
        for (const table of TABLES) {
          const url = apiUrl(collector.url, spec, table, from, end);
          const times: number[] = [];
          const started = performance.now();
          for (let i = 0; i < ROUNDS + 2; i++) {
            if (times.length >= MIN_ROUNDS && performance.now() - started > SERIES_BUDGET_S * 1000) break;
            const t0 = performance.now();
            const res = await fetch(url);
            const body = (await res.json()) as { cells?: unknown[]; table?: string };
            const ms = performance.now() - t0;
            if (res.status !== 200 || body.table !== table || !body.cells?.length)
              throw new Error(`${url}: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
            if (i >= 2) times.push(ms);
          }
          api[`${spec.name}/${table}`] = times;
        }
      }
    } finally {
      await stop(collector);
    }
    console.log(`API queries done; ${describeLoad()}`);
    // The direct runs again, after the API's: on a shared machine the load drifts between the phases, and
    // the direct figures are then taken from both sides of the API's (the store allows one process at a time).
    const again = await runStoreWorker({
      dataDir,
      targetRows: ROWS,
      end,
      days: DAYS,
      seed: 1,
      rounds: Math.ceil(ROUNDS / 2),
      seriesBudgetS: SERIES_BUDGET_S / 2,
      insertRounds: 0,
    });
    console.log(`direct queries (again) done; ${describeLoad()}`);
    const shapes = await measureShapes(dataDir, from, end);
    printShapes(shapes, direct.rows);

    const rows = QUERY_SPECS.flatMap((spec) =>
      TABLES.map((table) => {
        const key = `${spec.name}/${table}`;
        const d = [...direct.queryMs[key]!, ...again.queryMs[key]!];
        const a = api[key]!;
        return {
          query: spec.name,
          table,
          directRuns: d.length,
          apiRuns: a.length,
          directP50: median(d),
          directP95: quantile(d, 0.95),
          apiP50: median(a),
          apiP95: quantile(a, 0.95),
        };
      }),
    );
    printTable(
      `milliseconds (${direct.rows.toLocaleString('en')} records; up to ${ROUNDS} runs each, fewer when a series used ${SERIES_BUDGET_S} s)`,
      rows.map((r) => ({
        query: r.query,
        table: r.table,
        'direct p50': round(r.directP50, 1),
        'direct p95': round(r.directP95, 1),
        'API p50': round(r.apiP50, 1),
        'API p95': round(r.apiP95, 1),
        'API/direct (p50)': round(r.apiP50 / r.directP50, 2),
        'runs direct/API': `${r.directRuns}/${r.apiRuns}`,
      })),
    );
    for (const d of direct.disk)
      console.log(
        `${d.table}: ${d.rows.toLocaleString('en')} rows, ${d.parts} parts, ${round(d.bytesOnDisk / 2 ** 20, 1)} MiB on disk`,
      );
    const raw = rows.filter((r) => r.table === 'raw');
    const rollup = rows.filter((r) => r.table === 'rollup');
    const p95Ms = Math.max(...raw.map((r) => r.apiP95));
    const rollupP95Ms = Math.max(...rollup.map((r) => r.apiP95));
    const apiToDirectRatio = median(rows.map((r) => r.apiP50 / r.directP50));
    const rollupToRawRatio = median(QUERY_SPECS.map((_, i) => rollup[i]!.apiP50 / raw[i]!.apiP50));
    console.log(
      `\nslowest API p95: raw ${round(p95Ms, 1)} ms (goal < 100), rollup ${round(rollupP95Ms, 1)} ms (goal < 20); API/direct ${round(apiToDirectRatio, 2)}; rollup/raw ${round(rollupToRawRatio, 3)}`,
    );
    printResult({
      bench: 'query',
      ...(TREE === repoRoot ? {} : { commit: commitOf(TREE) }),
      rows: direct.rows,
      ...visitRecordsField(),
      p95Ms: round(p95Ms, 1),
      rollupP95Ms: round(rollupP95Ms, 1),
      apiToDirectRatio: round(apiToDirectRatio, 2),
      rollupToRawRatio: round(rollupToRawRatio, 3),
      generateSeconds: round(direct.generateSeconds, 1),
      seconds: round((performance.now() - benchStarted) / 1000, 1),
      load: { start: loadAtStart, end: loadAverage() },
      queries: Object.fromEntries(
        rows.map((r) => [
          `${r.query}/${r.table}`,
          {
            runs: r.apiRuns,
            directP50: round(r.directP50, 1),
            directP95: round(r.directP95, 1),
            apiP50: round(r.apiP50, 1),
            apiP95: round(r.apiP95, 1),
          },
        ]),
      ),
      ...shapesSummary(shapes),
    });
  } finally {
    if (!KEPT_DIR) rmSync(dataDir, { recursive: true, force: true });
  }
}

function printShapes(shapes: ShapeRow[], rows: number | null): void {
  printTable(
    `every query shape through the API, 30 days, table chosen by the collector (${rows === null ? 'kept store' : `${rows.toLocaleString('en')} records`}; ms)`,
    shapes.map((r) => ({
      shape: r.shape,
      path: r.path,
      first: round(r.first, 1),
      p50: round(r.p50, 1),
      p95: round(r.p95, 1),
      runs: r.runs,
      cells: r.cells,
    })),
  );
  const worst = shapes.reduce((a, b) => (b.p95 > a.p95 ? b : a));
  console.log(
    `\nslowest shape: ${worst.shape} (${worst.path}) p95 ${round(worst.p95, 1)} ms (goal < 100); shapes at or over 100 ms: ${shapes.filter((r) => r.p95 >= 100).length} of ${shapes.length}`,
  );
}

function shapesSummary(shapes: ShapeRow[]): Record<string, unknown> {
  return {
    shapesP95Ms: round(Math.max(...shapes.map((r) => r.p95)), 1),
    shapesOver100Ms: shapes.filter((r) => r.p95 >= 100).length,
    shapes: Object.fromEntries(
      shapes.map((r) => [
        r.shape,
        { path: r.path, first: round(r.first, 1), runs: r.runs, p50: round(r.p50, 1), p95: round(r.p95, 1) },
      ]),
    ),
  };
}

async function shapesPhase(
  dataDir: string,
  from: number,
  end: number,
  loadAtStart: ReturnType<typeof loadAverage>,
  started: number,
): Promise<void> {
  console.log(`collector from ${TREE}`);
  const shapes = await measureShapes(dataDir, from, end);
  printShapes(shapes, null);
  printResult({
    bench: 'query-shapes',
    tree: TREE,
    ...visitRecordsField(),
    ...(TREE === repoRoot ? {} : { commit: commitOf(TREE) }),
    ...shapesSummary(shapes),
    seconds: round((performance.now() - started) / 1000, 1),
    load: { start: loadAtStart, end: loadAverage() },
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
