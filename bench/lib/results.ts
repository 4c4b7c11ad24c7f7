/**
 * Every bench's figures, kept: the JSON object a bench prints as its last line is also appended to
 * bench/results.jsonl with when, where and under what load it was measured, and `pnpm bench:report`
 * turns the newest line of each bench into BENCHMARKS.md. The machines here are shared, so a figure
 * without its machine and load average cannot be read.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';

/** Where results are appended; BENCH_RESULTS_FILE points elsewhere (an empty value: nowhere). */
export const RESULTS_FILE = fileURLToPath(new URL('../results.jsonl', import.meta.url));

/** What one line of bench/results.jsonl holds besides the bench's own figures. */
export interface ResultContext {
  /** When the bench finished, ISO 8601 UTC. */
  date: string;
  /** CPU model, cores and memory of the machine that ran it. */
  machine: string;
  /** The 1-minute load average when the bench started and when it finished (null where not recorded). */
  load: { start: number | null; end: number | null };
  node: string;
  /** The commit the bench ran on (short hash; null outside a git checkout). */
  commit: string | null;
}

export type ResultLine = ResultContext & { bench: string; variant?: string } & Record<string, unknown>;

// Taken when the bench's process loads this module, i.e. as the bench starts.
const loadAtStart = loadavg()[0]!;

export function machineDescription(): string {
  const cores = cpus();
  return `${cores[0]?.model.trim() ?? 'unknown CPU'}, ${cores.length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB`;
}

/** The short hash of the commit checked out in `dir` (this checkout by default); null outside a git checkout. */
export function commitOf(dir = fileURLToPath(new URL('..', import.meta.url))): string | null {
  try {
    return (
      execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
        cwd: dir,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }).trim() || null
    );
  } catch {
    return null;
  }
}

const round2 = (x: number) => Math.round(x * 100) / 100;

/**
 * The line to append for `result` (which names its `bench`). BENCH_VARIANT labels a run made with
 * non-default settings (e.g. `BENCH_VARIANT="cap off" CLIENT_RECORDS_PER_CELL_DAY=0 pnpm bench ingest`),
 * so it is reported beside the default run instead of replacing it.
 */
export function resultLine(result: Record<string, unknown>, env: NodeJS.ProcessEnv = process.env): ResultLine {
  if (typeof result.bench !== 'string') throw new Error('a bench result names its bench');
  const variant = env.BENCH_VARIANT?.trim() || (typeof result.variant === 'string' ? result.variant : undefined);
  return {
    ...result,
    bench: result.bench,
    ...(variant ? { variant } : {}),
    date: new Date().toISOString().slice(0, 19) + 'Z',
    machine: machineDescription(),
    load: { start: round2(loadAtStart), end: round2(loadavg()[0]!) },
    node: process.version,
    // A bench that measured another checkout (BENCH_QUERY_TREE, BENCH_DASHBOARD_TREE) names that checkout's commit.
    commit: typeof result.commit === 'string' ? result.commit : commitOf(),
  };
}

/** Appends the result's line to bench/results.jsonl (or BENCH_RESULTS_FILE) and says where. */
export function appendResult(result: Record<string, unknown>, env: NodeJS.ProcessEnv = process.env): void {
  const file = env.BENCH_RESULTS_FILE ?? RESULTS_FILE;
  if (!file) return;
  appendFileSync(file, `${JSON.stringify(resultLine(result, env))}\n`);
  console.error(`(appended to ${file}; \`pnpm bench:report\` rewrites BENCHMARKS.md from it)`);
}
