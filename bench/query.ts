/**
 * Query benchmark. Generates BENCH_QUERY_ROWS records (default 10 M: 30 days, 53 countries, the demo's
 * sites) into a fresh store with the dashboard's SQL generator, then runs the compare, map and timeseries
 * queries over the 30 days BENCH_QUERY_ROUNDS times each (default 50), on the raw table and on the daily
 * rollup: directly on the store (the SQL the API builds, in a child process), then through the
 * collector's HTTP API (another process on the same data), then directly again. Baseline: the direct
 * query, so the API's own cost shows as the API/direct ratio. Prints the load average at each phase.
 *
 *   pnpm bench:query
 *   BENCH_PROFILE_DIR=/tmp/prof pnpm bench:query   also writes a V8 CPU profile of the collector
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTs, stop } from './lib/processes';
import { apiUrl, MIN_ROUNDS, QUERY_SPECS, TABLES } from './lib/query-specs';
import { machine, median, printResult, printTable, quantile, round } from './lib/report';
import { runStoreWorker } from './lib/store-child';
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

async function main(): Promise<void> {
  console.log(`query benchmark: ${ROWS.toLocaleString('en')} records over ${DAYS} days, ${ROUNDS} runs per query and table; ${machine()}; ${describeLoad()}`);
  const loadAtStart = loadAverage();
  const benchStarted = performance.now();
  const dataDir = mkdtempSync(join(tmpdir(), 'tlsrum-bench-query-'));
  // Day-aligned: the rollups answer whole days for a month, so both tables cover exactly the same range.
  const end = Math.floor(Date.now() / DAY) * DAY;
  const from = end - DAYS * 86_400_000;
  try {
    const direct = await runStoreWorker({ dataDir, targetRows: ROWS, end, days: DAYS, seed: 1, rounds: ROUNDS, seriesBudgetS: SERIES_BUDGET_S, insertRounds: 0 });
    console.log(`direct queries done; ${describeLoad()}`);
    console.log(`generated ${direct.generatedRows.toLocaleString('en')} records in ${round(direct.generateSeconds, 1)} s (SQL INSERT … SELECT; of which ${round(direct.rollupSeconds, 1)} s rebuilding the daily rollup)`);

    const api: Record<string, number[]> = {};
    const collector = await startTs('collector/src/server.ts', { DATA_DIR: dataDir, LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '0', ALERT_INTERVAL_MS: '0', PROBE_INTERVAL_MS: '0' }, '/readyz', PROFILE);
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
            if (res.status !== 200 || body.table !== table || !body.cells?.length) throw new Error(`${url}: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
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
    const again = await runStoreWorker({ dataDir, targetRows: ROWS, end, days: DAYS, seed: 1, rounds: Math.ceil(ROUNDS / 2), seriesBudgetS: SERIES_BUDGET_S / 2, insertRounds: 0 });
    console.log(`direct queries (again) done; ${describeLoad()}`);

    const rows = QUERY_SPECS.flatMap((spec) =>
      TABLES.map((table) => {
        const key = `${spec.name}/${table}`;
        const d = [...direct.queryMs[key]!, ...again.queryMs[key]!];
        const a = api[key]!;
        return { query: spec.name, table, directRuns: d.length, apiRuns: a.length, directP50: median(d), directP95: quantile(d, 0.95), apiP50: median(a), apiP95: quantile(a, 0.95) };
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
    for (const d of direct.disk) console.log(`${d.table}: ${d.rows.toLocaleString('en')} rows, ${d.parts} parts, ${round(d.bytesOnDisk / 2 ** 20, 1)} MiB on disk`);
    const raw = rows.filter((r) => r.table === 'raw');
    const rollup = rows.filter((r) => r.table === 'rollup');
    const p95Ms = Math.max(...raw.map((r) => r.apiP95));
    const rollupP95Ms = Math.max(...rollup.map((r) => r.apiP95));
    const apiToDirectRatio = median(rows.map((r) => r.apiP50 / r.directP50));
    const rollupToRawRatio = median(QUERY_SPECS.map((_, i) => rollup[i]!.apiP50 / raw[i]!.apiP50));
    console.log(`\nslowest API p95: raw ${round(p95Ms, 1)} ms (goal < 100), rollup ${round(rollupP95Ms, 1)} ms (goal < 20); API/direct ${round(apiToDirectRatio, 2)}; rollup/raw ${round(rollupToRawRatio, 3)}`);
    printResult({
      bench: 'query',
      rows: direct.rows,
      p95Ms: round(p95Ms, 1),
      rollupP95Ms: round(rollupP95Ms, 1),
      apiToDirectRatio: round(apiToDirectRatio, 2),
      rollupToRawRatio: round(rollupToRawRatio, 3),
      generateSeconds: round(direct.generateSeconds, 1),
      seconds: round((performance.now() - benchStarted) / 1000, 1),
      load: { start: loadAtStart, end: loadAverage() },
      queries: Object.fromEntries(rows.map((r) => [`${r.query}/${r.table}`, { runs: r.apiRuns, directP50: round(r.directP50, 1), directP95: round(r.directP95, 1), apiP50: round(r.apiP50, 1), apiP95: round(r.apiP95, 1) }])),
    });
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
