/** The read-isolation bench. What it measures, how to run it and its settings: its entry in lib/catalogue.ts (shown in BENCHMARKS.md). */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnTs } from '@tlsrum/collector/test/node-process';
import { describeLoad, loadAverage } from './lib/load';
import { repoRoot, stop, TIMED_COLLECTOR_ENV } from './lib/processes';
import { machine, printResult, printTable, quantile, round } from './lib/report';
import { commitOf } from './lib/results';
import { seedDemoStore, visitRecordsField } from './lib/store-child';

const ROWS = Number(process.env.BENCH_ROWS ?? 1_200_000);
const DAYS = 30;
const HOUR = 3_600_000;
const KEPT_DIR = process.env.BENCH_ISOLATION_DATA_DIR;
const TREE = process.env.BENCH_ISOLATION_TREE ?? repoRoot;
const RUNS = Number(process.env.BENCH_ISOLATION_RUNS ?? 40);
const HEAVY_ASKERS = Number(process.env.BENCH_ISOLATION_HEAVY ?? 3);

/** The dashboard's light questions, as its default view asks them (its range left to the collector). */
const LIGHT = [
  '/v1/summary',
  '/v1/compare?dimensions=stack,mode',
  '/v1/map',
  '/v1/timeseries?interval=day&dimensions=stack',
];

/** The heaviest questions anyone may ask without a token: a month of the raw table, and the largest what-if. */
function heavyQuestions(now: number): string[] {
  const from = now - 31 * 24 * HOUR;
  return [
    `/v1/compare?table=raw&dimensions=country,browser&from=${from}&to=${now}`,
    `/v1/whatif?limit=100000&from=${from}&to=${now}`,
  ];
}

/** Each light question in turn, `runs` times in all: the time of each answer (ms), and how many were not 200. */
async function askLight(base: string, runs: number): Promise<{ ms: number[]; failed: number }> {
  const ms: number[] = [];
  let failed = 0;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const res = await fetch(base + LIGHT[i % LIGHT.length]);
    const body = (await res.json()) as { cells?: unknown[]; records?: number };
    ms.push(performance.now() - t0);
    if (res.status !== 200) failed++;
    else if (!(body.cells?.length || body.records)) throw new Error(`${LIGHT[i % LIGHT.length]}: an empty answer`);
  }
  return { ms, failed };
}

/** `askers` loops asking the heavy questions (each its own, in turn) until stopped; their answers' statuses. */
function askHeavy(base: string, askers: number, now: number): { stop: () => Promise<Record<string, number>> } {
  const questions = heavyQuestions(now);
  const stopped = new AbortController();
  const statuses: Record<string, number> = {};
  const loops = Array.from({ length: askers }, async (_, a) => {
    for (let i = a; !stopped.signal.aborted; i++) {
      try {
        const res = await fetch(base + questions[i % questions.length], { signal: stopped.signal });
        await res.arrayBuffer();
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      } catch {
        // Stopped: the collector drops the question with its caller. Any other failure is counted.
        if (!stopped.signal.aborted) statuses.error = (statuses.error ?? 0) + 1;
      }
    }
  });
  return {
    stop: async () => {
      stopped.abort();
      await Promise.all(loops);
      return statuses;
    },
  };
}

const p = (xs: number[], q: number) => round(quantile(xs, q), 1);

async function main(): Promise<void> {
  console.log(
    `read-isolation benchmark: ${ROWS.toLocaleString('en')} records over ${DAYS} days, ${RUNS} light questions alone and beside ${HEAVY_ASKERS} heavy askers; ${machine()}; ${describeLoad()}`,
  );
  const loadAtStart = loadAverage();
  if (KEPT_DIR) mkdirSync(KEPT_DIR, { recursive: true });
  const dataDir = KEPT_DIR ?? mkdtempSync(join(tmpdir(), 'tlsrum-bench-isolation-'));
  const end = Math.floor(Date.now() / HOUR) * HOUR;
  let collector: Awaited<ReturnType<typeof spawnTs>> | null = null;
  try {
    if (!existsSync(join(dataDir, 'metadata'))) {
      const made = await seedDemoStore(dataDir, ROWS, end, DAYS);
      console.log(`generated ${made.generatedRows.toLocaleString('en')} records; ${describeLoad()}`);
      if (KEPT_DIR) writeFileSync(join(dataDir, 'bench-rows.json'), JSON.stringify({ rows: made.rows }));
    }
    collector = await spawnTs('collector/src/server.ts', {
      cwd: TREE,
      env: {
        ...TIMED_COLLECTOR_ENV,
        DATA_DIR: dataDir,
        // Every light question worked out, not read from memory: the store's slots are what is measured.
        ANSWER_CACHE_SECONDS: '0',
      },
      ready: { serves: '/readyz' },
      timeoutMs: 600_000,
    });
    const base = collector.url;
    // Right after the start, as a person opening the dashboard just after a restart asks them: the collector's
    // start-up reads (the per-client cap's counts of the open days, the site profiles) run beside these, and the
    // store's caches are cold. Then each heavy question once alone (its time for the table).
    const started = await askLight(base, RUNS);
    const heavyAlone: Record<string, number> = {};
    for (const q of heavyQuestions(end)) {
      const t0 = performance.now();
      await (await fetch(base + q)).arrayBuffer();
      heavyAlone[q.split('?')[0]!] = round(performance.now() - t0, 0);
    }
    const before = await askLight(base, RUNS);
    const heavy = askHeavy(base, HEAVY_ASKERS, end);
    // Let the heavy questions reach the store before the first light one.
    await new Promise((r) => setTimeout(r, 500));
    const loaded = await askLight(base, RUNS);
    const heavyStatuses = await heavy.stop();
    const after = await askLight(base, RUNS);
    const alone = [...before.ms, ...after.ms];
    printTable('light questions (ms)', [
      {
        when: 'alone (before and after)',
        p50: p(alone, 0.5),
        p95: p(alone, 0.95),
        failed: before.failed + after.failed,
      },
      {
        when: "right after the collector's start",
        p50: p(started.ms, 0.5),
        p95: p(started.ms, 0.95),
        failed: started.failed,
      },
      {
        when: `beside ${HEAVY_ASKERS} heavy askers`,
        p50: p(loaded.ms, 0.5),
        p95: p(loaded.ms, 0.95),
        failed: loaded.failed,
      },
    ]);
    console.log(
      `heavy questions alone: ${Object.entries(heavyAlone)
        .map(([q, ms]) => `${q} ${ms} ms`)
        .join(
          ', ',
        )}; answered while measured: ${JSON.stringify(heavyStatuses)}; load average ${loadAtStart.load1} → ${loadAverage().load1}`,
    );
    printResult({
      bench: 'read-isolation',
      rows: ROWS,
      ...visitRecordsField(),
      heavyAskers: HEAVY_ASKERS,
      lightRuns: RUNS,
      aloneP50Ms: p(alone, 0.5),
      aloneP95Ms: p(alone, 0.95),
      loadedP50Ms: p(loaded.ms, 0.5),
      loadedP95Ms: p(loaded.ms, 0.95),
      ratioP50: round(quantile(loaded.ms, 0.5) / quantile(alone, 0.5), 2),
      ratioP95: round(quantile(loaded.ms, 0.95) / quantile(alone, 0.95), 2),
      startedP50Ms: p(started.ms, 0.5),
      startedP95Ms: p(started.ms, 0.95),
      startedMaxMs: round(Math.max(...started.ms), 1),
      startedRatioP95: round(quantile(started.ms, 0.95) / quantile(alone, 0.95), 2),
      lightFailed: started.failed + before.failed + loaded.failed + after.failed,
      heavyAnswered: heavyStatuses,
      ...(TREE === repoRoot ? {} : { commit: commitOf(TREE) }),
    });
  } finally {
    if (collector) await stop(collector);
    if (!KEPT_DIR) rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
