/** Child processes for benchmarks: start, wait until they answer, sample CPU and RSS from /proc, stop. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { spawnTs, stopChild, type Child } from '@tlsrum/collector/test/node-process';

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
export { freePort, type Child } from '@tlsrum/collector/test/node-process';

/** Runs a TypeScript entry point with node + tsx, ready once `readyPath` answers 2xx. */
export function startTs(
  entry: string,
  env: Record<string, string>,
  readyPath = '/healthz',
  nodeArgs: string[] = [],
): Promise<Child> {
  return spawnTs(entry, { cwd: repoRoot, env, nodeArgs, ready: { serves: readyPath }, timeoutMs: 60_000 });
}

export const stop = stopChild;

/**
 * The collector's settings for timing its reads: no rate limits, and none of its own work beside the reads —
 * no alerts or probes, not last month's open dataset (written a minute after start once a month has ended: it
 * reads the month's raw rows), no merge of closed months (a bench's store has them merged, as a running
 * collector keeps them). Answers are still kept unless the bench says otherwise.
 */
export const TIMED_COLLECTOR_ENV: Readonly<Record<string, string>> = {
  LOG_LEVEL: 'warn',
  RATE_LIMIT_PER_MINUTE: '0',
  QUERY_RATE_LIMIT_PER_MINUTE: '0',
  ALERT_INTERVAL_MS: '0',
  PROBE_INTERVAL_MS: '0',
  DATASET_MONTHLY_EXPORT: 'false',
  COMPACT_CLOSED_MONTHS: 'false',
};

/** CPU seconds (user + system) the process has used so far. */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
}

/** Peak resident set size (VmHWM), MiB. */
export function peakRssMiB(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}
