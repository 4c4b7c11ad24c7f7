/** The scaling bench. What it measures, how to run it and its settings: its entry in lib/catalogue.ts (shown in BENCHMARKS.md). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QUERY_SPECS, TABLES } from './lib/query-specs';
import { machine, median, printResult, printTable, round } from './lib/report';
import { runStoreWorker, visitRecordsField } from './lib/store-child';
import { describeLoad, loadAverage } from './lib/load';
import type { WorkerResult } from './lib/store-worker';

const LEVELS = (process.env.BENCH_SCALING_LEVELS ?? '1000000,10000000,30000000,50000000').split(',').map(Number);
const BUDGET_S = Number(process.env.BENCH_SCALING_BUDGET_S ?? 1500);
const ROUNDS = Number(process.env.BENCH_SCALING_ROUNDS ?? 10);
const DAYS = 30;
const DAY = 86_400_000;

interface Level {
  rows: number;
  result: WorkerResult;
  seconds: number;
}

async function main(): Promise<void> {
  console.log(
    `scaling benchmark: ${LEVELS.map((l) => l.toLocaleString('en')).join(' → ')} records, ${ROUNDS} runs per query, budget ${BUDGET_S} s; ${machine()}; ${describeLoad()}`,
  );
  const loadAtStart = loadAverage();
  const dataDir = mkdtempSync(join(tmpdir(), 'tlsrum-bench-scaling-'));
  // Day-aligned: the rollup answers whole days, so both tables cover exactly the same range.
  const end = Math.floor(Date.now() / DAY) * DAY;
  const started = performance.now();
  const levels: Level[] = [];
  const skipped: number[] = [];
  try {
    for (const [i, target] of LEVELS.entries()) {
      const elapsed = (performance.now() - started) / 1000;
      const prev = levels.at(-1);
      if (prev) {
        // Predict from the previous level: writing the new raw rows and rolling them up at its rates per
        // record, then merging the closed months and measuring the queries, which grow with the whole store.
        const grow = target / prev.rows;
        const added = target - prev.rows;
        const rawSeconds = prev.result.generateSeconds - prev.result.rollupSeconds;
        const perRecord = (seconds: number) => seconds / Math.max(prev.result.generatedRows, 1);
        // Writing slows down as the table grows (merges): 10 M → 50 M measured 2.8× slower per row.
        const predicted =
          2 * added * perRecord(rawSeconds) +
          added * perRecord(prev.result.rollupSeconds) +
          grow * (prev.seconds - prev.result.generateSeconds);
        if (elapsed + predicted > BUDGET_S) {
          console.log(
            `skipping ${target.toLocaleString('en')}: would need ≈ ${Math.round(predicted)} s more, ${Math.round(BUDGET_S - elapsed)} s left in the budget`,
          );
          skipped.push(...LEVELS.slice(i));
          break;
        }
      }
      const t0 = performance.now();
      const result = await runStoreWorker({
        dataDir,
        targetRows: target,
        end,
        days: DAYS,
        seed: i + 1,
        rounds: ROUNDS,
        seriesBudgetS: 10,
        insertRounds: 3,
        // The store as a running collector keeps it, as bench:query reads it: closed months in one part.
        compactClosedMonths: true,
      });
      const seconds = (performance.now() - t0) / 1000;
      levels.push({ rows: result.rows, result, seconds });
      console.log(
        `${result.rows.toLocaleString('en')} records: generated ${result.generatedRows.toLocaleString('en')} in ${round(result.generateSeconds, 1)} s, measured in ${round(seconds - result.generateSeconds, 1)} s (of generation: ${round(result.rollupSeconds, 1)} s rolling them up; then ${round(result.compactSeconds, 1)} s merging ${result.compactedPartitions} closed months of the rollups); ${describeLoad()}`,
      );
    }
    if (!levels.length) throw new Error('no level measured');

    const base = levels[0]!;
    const fig = (l: Level) => {
      const raw = l.result.disk.find((d) => d.table === 'handshakes');
      const rollup = l.result.disk.find((d) => d.table === 'handshakes_cuts');
      const q = Object.fromEntries(
        QUERY_SPECS.flatMap((s) => TABLES.map((t) => [`${s.name}/${t}`, median(l.result.queryMs[`${s.name}/${t}`]!)])),
      );
      return {
        rows: l.rows,
        insertJsonUs: median(l.result.insertUsPerRow.JSONEachRow!),
        insertTsvUs: median(l.result.insertUsPerRow.TabSeparated!),
        rawQueryMs: median(QUERY_SPECS.map((s) => q[`${s.name}/raw`]!)),
        rollupQueryMs: median(QUERY_SPECS.map((s) => q[`${s.name}/rollup`]!)),
        // The same queries minutes earlier, before the closed months were merged; null when none was in parts.
        rollupQueryMsUnmerged: Object.keys(l.result.queryMsBeforeCompact).length
          ? median(QUERY_SPECS.map((s) => median(l.result.queryMsBeforeCompact[`${s.name}/rollup`]!)))
          : null,
        queries: q,
        bytesPerRow: raw ? raw.bytesOnDisk / raw.rows : NaN,
        // The raw table and every rollup its views fill: what an operator's disk holds per record.
        bytesPerRowAllTables: raw ? l.result.disk.reduce((sum, d) => sum + d.bytesOnDisk, 0) / raw.rows : NaN,
        rollupRows: rollup?.rows ?? 0,
        // Rolling the size's new records up into every rollup, per record: what growing the store costs beside
        // writing the raw rows (the collector's views pay it at insert).
        rollupBuildUs: l.result.generatedRows ? (l.result.rollupSeconds * 1e6) / l.result.generatedRows : NaN,
        rollupBytes: rollup?.bytesOnDisk ?? 0,
        compactSeconds: l.result.compactSeconds,
        parts: raw?.parts ?? 0,
        rollupParts: rollup?.parts ?? 0,
      };
    };
    const figs = levels.map(fig);
    const b = fig(base);
    // A size with nothing to merge read the same store before and after: its merged figure is its unmerged one.
    const unmergedBase = (f: ReturnType<typeof fig>) => f.rollupQueryMsUnmerged ?? f.rollupQueryMs;
    printTable(
      "per size (query figures: median over the three queries of each query's median)",
      figs.map((f) => ({
        records: f.rows.toLocaleString('en'),
        'insert µs/row JSON': round(f.insertJsonUs, 1),
        'insert µs/row TSV': round(f.insertTsvUs, 1),
        'raw query ms': round(f.rawQueryMs, 1),
        'raw × base': round(f.rawQueryMs / b.rawQueryMs, 2),
        'rollup query ms': round(f.rollupQueryMs, 1),
        'rollup × base': round(f.rollupQueryMs / b.rollupQueryMs, 2),
        'rollup query ms, not merged': round(unmergedBase(f), 1),
        'not merged × base': round(unmergedBase(f) / unmergedBase(b), 2),
        'rollup rows': f.rollupRows.toLocaleString('en'),
        'rollups built µs/record': round(f.rollupBuildUs, 1),
        'B/record on disk (raw)': round(f.bytesPerRow, 1),
        'B/record on disk (all tables)': round(f.bytesPerRowAllTables, 1),
        'closed months merged in s': round(f.compactSeconds, 1),
        'parts (raw)': f.parts,
        'parts (daily rollup)': f.rollupParts,
      })),
    );
    printTable(
      'query medians, ms',
      figs.map((f) => ({
        records: f.rows.toLocaleString('en'),
        ...Object.fromEntries(Object.entries(f.queries).map(([k, v]) => [k, round(v, 1)])),
      })),
    );
    if (skipped.length)
      console.log(`\nnot measured (time budget): ${skipped.map((s) => s.toLocaleString('en')).join(', ')}`);
    const last = figs.at(-1)!;
    printResult({
      bench: 'scaling',
      ...visitRecordsField(),
      levels: figs.map((f) => ({
        rows: f.rows,
        insertJsonUsPerRow: round(f.insertJsonUs, 2),
        insertTsvUsPerRow: round(f.insertTsvUs, 2),
        rawQueryMs: round(f.rawQueryMs, 1),
        rollupQueryMs: round(f.rollupQueryMs, 1),
        ...(f.rollupQueryMsUnmerged === null ? {} : { rollupQueryMsUnmerged: round(f.rollupQueryMsUnmerged, 1) }),
        bytesPerRowOnDisk: round(f.bytesPerRow, 1),
        bytesPerRowAllTables: round(f.bytesPerRowAllTables, 1),
        rollupRows: f.rollupRows,
        rollupBuildUsPerRecord: round(f.rollupBuildUs, 1),
        compactSeconds: round(f.compactSeconds, 1),
        rollupParts: f.rollupParts,
      })),
      rawQueryGrowth: round(last.rawQueryMs / b.rawQueryMs, 2),
      rollupQueryGrowth: round(last.rollupQueryMs / b.rollupQueryMs, 2),
      // The same growth had the closed months stayed in the parts the store's merges left them in.
      rollupQueryGrowthUnmerged: round(unmergedBase(last) / unmergedBase(b), 2),
      insertGrowth: round(last.insertTsvUs / b.insertTsvUs, 2),
      rowsGrowth: round(last.rows / b.rows, 1),
      skipped,
      seconds: round((performance.now() - started) / 1000, 1),
      load: { start: loadAtStart, end: loadAverage() },
    });
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
