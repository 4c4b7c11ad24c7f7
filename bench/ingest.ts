/** The ingest bench. What it measures, how to run it and its settings: its entry in lib/catalogue.ts (shown in BENCHMARKS.md). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '@tlsrum/collector/store/clients';
import { RECORDS_PER_BATCH } from './lib/load-generator';
import { measureLoad } from './lib/measure-load';
import { startTs, stop, type Child } from './lib/processes';
import { machine, printResult, printTable, round } from './lib/report';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 30);
const WARMUP = Number(process.env.BENCH_WARMUP_SECONDS ?? 5);
const CONNECTIONS = 50;

const measure = (child: Child, track = false) =>
  measureLoad(child, { connections: CONNECTIONS, warmupSeconds: WARMUP, seconds: SECONDS, track });

async function main() {
  console.log(
    `ingest benchmark: ${CONNECTIONS} connections, gzip batches of ${RECORDS_PER_BATCH}, ${WARMUP} s warm-up + ${SECONDS} s each; ${machine()}`,
  );

  const bare = await startTs('bench/lib/bare-server.ts', {});
  const ceiling = await measure(bare);
  await stop(bare);

  const dataDir = mkdtempSync(join(tmpdir(), 'tlsrum-bench-ingest-'));
  try {
    const profile = process.env.BENCH_PROFILE_DIR
      ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`]
      : [];
    const collector = await startTs(
      'collector/src/server.ts',
      { DATA_DIR: dataDir, LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '0' },
      '/readyz',
      profile,
    );
    const real = await measure(collector, true);
    const acknowledgedIds = new Set(real.acknowledgedIds);
    const exitCode = await stop(collector); // SIGTERM: drains everything acknowledged
    const store = openStore({ dataDir, clickhouse: null });
    const rs = await store.query.query({
      query: 'SELECT toString(batchId) AS id, count() AS n FROM handshakes GROUP BY batchId',
      format: 'JSONEachRow',
    });
    const storedBatches = new Map((await rs.json<{ id: string; n: number }>()).map((r) => [r.id, Number(r.n)]));
    await store.close();

    // Exactly once: every acknowledged batch is stored with all its records, and no batch twice.
    const acknowledged = acknowledgedIds.size * RECORDS_PER_BATCH;
    let lost = 0;
    for (const id of acknowledgedIds)
      lost += RECORDS_PER_BATCH - Math.min(RECORDS_PER_BATCH, storedBatches.get(id) ?? 0);
    let duplicated = 0;
    let stored = 0;
    for (const n of storedBatches.values()) {
      stored += n;
      duplicated += Math.max(0, n - RECORDS_PER_BATCH);
    }
    const batches = storedBatches.size;
    // Batches in flight when the load stopped are stored but their 202 was never read: not counted as acknowledged.
    const inFlightAtStop = batches - [...acknowledgedIds].filter((id) => storedBatches.has(id)).length;
    const ratio = real.run.recordsPerSec / ceiling.run.recordsPerSec;

    printTable('results (measured run)', [
      {
        server: 'bare node:http (ceiling)',
        'records/s': Math.round(ceiling.run.recordsPerSec),
        'req/s': Math.round(ceiling.run.requestsPerSec),
        'p50 ms': ceiling.run.p50,
        'p99 ms': ceiling.run.p99,
        'non-2xx': ceiling.run.non2xx,
        errors: ceiling.run.errors,
        'CPU cores': round(ceiling.cpuCores),
        'peak RSS MiB': Math.round(ceiling.rssMiB),
      },
      {
        server: 'collector + store',
        'records/s': Math.round(real.run.recordsPerSec),
        'req/s': Math.round(real.run.requestsPerSec),
        'p50 ms': real.run.p50,
        'p99 ms': real.run.p99,
        // By status and message in the table below.
        'non-2xx': real.run.non2xx,
        errors: real.run.errors,
        'CPU cores': round(real.cpuCores),
        'peak RSS MiB': Math.round(real.rssMiB),
      },
    ]);
    if (real.run.non2xx)
      printTable(
        'requests the collector refused, by its reason (measured run)',
        Object.entries(real.run.reasons)
          .sort((a, b) => b[1] - a[1])
          .map(([reason, requests]) => ({ reason, requests })),
      );
    printTable('durability (records)', [
      {
        acknowledged,
        stored,
        'batches stored': batches,
        'stored, 202 unread at stop': inFlightAtStop,
        lost,
        duplicated,
        'collector exit': String(exitCode),
      },
    ]);
    console.log(
      `\nratio collector/ceiling: ${round(ratio, 3)} (goal ≥ 0.5); p99 ${real.run.p99} ms (goal < 100); RSS ${Math.round(real.rssMiB)} MiB (goal < 1024); lost ${lost} (goal 0)`,
    );
    printResult({
      bench: 'ingest',
      ratio: round(ratio, 3),
      recordsPerSec: Math.round(real.run.recordsPerSec),
      baselineRecordsPerSec: Math.round(ceiling.run.recordsPerSec),
      p50Ms: real.run.p50,
      p99Ms: real.run.p99,
      cpuCores: round(real.cpuCores),
      usPerRecord: round((real.cpuCores * 1e6) / real.run.recordsPerSec, 1),
      rssMiB: Math.round(real.rssMiB),
      acknowledged,
      stored,
      lost,
      duplicated,
      non2xx: real.run.non2xx,
      ...(real.run.non2xx ? { refusedBy: real.run.reasons } : {}),
      seconds: SECONDS,
    });
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
