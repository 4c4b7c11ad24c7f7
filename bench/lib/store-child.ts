/** Runs bench/lib/store-worker.ts in a child process and returns its result line. */
import { spawn } from 'node:child_process';
import { repoRoot } from './processes';
import type { WorkerInput, WorkerResult } from './store-worker';

/**
 * Records per visit of the demo generator's clients (BENCH_VISIT_RECORDS, default 1: every record its own client
 * visit and batch, the most clients and bytes a number of records can have; `pnpm demo` uses 8). A kept store
 * holds the records it was filled with.
 */
export const VISIT_RECORDS = Number(process.env.BENCH_VISIT_RECORDS ?? 1);
if (!Number.isInteger(VISIT_RECORDS) || VISIT_RECORDS < 1)
  throw new RangeError(`BENCH_VISIT_RECORDS must be a whole number ≥ 1: ${process.env.BENCH_VISIT_RECORDS}`);

/** The result line's field saying which records were generated, when not the default. */
export const visitRecordsField = (): { visitRecords?: number } =>
  VISIT_RECORDS > 1 ? { visitRecords: VISIT_RECORDS } : {};

export async function runStoreWorker(
  input: WorkerInput,
  onLine: (line: string) => void = () => {},
): Promise<WorkerResult> {
  const proc = spawn(
    process.execPath,
    ['--import', 'tsx', 'bench/lib/store-worker.ts', JSON.stringify({ visitRecords: VISIT_RECORDS, ...input })],
    {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  let err = '';
  proc.stdout.on('data', (d: Buffer) => {
    out += d;
    for (const line of String(d).split('\n')) if (line && !line.startsWith('RESULT ')) onLine(line);
  });
  proc.stderr.on('data', (d: Buffer) => (err += d));
  const code = await new Promise<number | null>((resolve) => proc.on('exit', resolve));
  const line = out.split('\n').find((l) => l.startsWith('RESULT '));
  if (code !== 0 || !line) throw new Error(`store worker failed (exit ${code}): ${err.slice(-2000)}`);
  return JSON.parse(line.slice('RESULT '.length)) as WorkerResult;
}

/** A store filled with `rows` demo records over `days` days ending at `end`, its closed months merged as a collector keeps them, and nothing timed in it. */
export function seedDemoStore(
  dataDir: string,
  rows: number,
  end: number,
  days: number,
  onLine?: (line: string) => void,
): Promise<WorkerResult> {
  return runStoreWorker(
    {
      dataDir,
      targetRows: rows,
      end,
      days,
      seed: 1,
      rounds: 0,
      seriesBudgetS: 0,
      insertRounds: 0,
      compactClosedMonths: true,
    },
    onLine,
  );
}
