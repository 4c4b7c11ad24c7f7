/**
 * The collector as a real process on loopback (fault tests): start, wait until it serves, load it with
 * concurrent clients, read its metrics, stop it by pid.
 */
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { makeBatch, makeRecords, metricValue } from './helpers';
import { spawnTs, stopChild, type Child } from './node-process';
import type { HandshakeBatch } from '@tlsrum/shared';

const collectorDir = fileURLToPath(new URL('../..', import.meta.url));

export type Collector = Child;

/** `src/server.ts` with load shedding and the rate limit off (tests load it from one address on a busy machine). */
export async function startCollector(env: Record<string, string>): Promise<Collector> {
  return spawnTs('src/server.ts', {
    cwd: collectorDir,
    env: {
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_MINUTE: '0',
      QUERY_RATE_LIMIT_PER_MINUTE: '0',
      MAX_EVENT_LOOP_DELAY_MS: '0',
      PROBE_INTERVAL_MS: '0',
      // Every answer fresh: records are stored and asked about again at once.
      ANSWER_CACHE_SECONDS: '0',
      ...env,
    },
    ready: { logged: 'listening on' },
  });
}

export const stopCollector = stopChild;

export async function scrape(c: Collector, series: string): Promise<number | undefined> {
  return metricValue(await (await fetch(`${c.url}/metrics`)).text(), series);
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface LoadStats {
  /** Batch ids answered 202 (accepted or duplicate). */
  acknowledged: Map<string, number>;
  /** Every batch sent, acknowledged or not, so a test can resend them. */
  sent: Map<string, HandshakeBatch>;
  statuses: Map<number, number>;
  /** 202s answered after `markFault()` was called. */
  acceptedAfterMark: number;
  retryAfterSeen: Set<string>;
  errors: number;
}

/**
 * `workers` clients posting gzip batches of `records` as fast as the collector answers, until `stop()`.
 * A 503/429 makes that client pause briefly (not the full Retry-After: the tests want pressure).
 */
export function loadGenerator(url: string, opts: { workers: number; records: number }) {
  const stats: LoadStats = {
    acknowledged: new Map(),
    sent: new Map(),
    statuses: new Map(),
    acceptedAfterMark: 0,
    retryAfterSeen: new Set(),
    errors: 0,
  };
  let running = true;
  let marked = false;
  const worker = async () => {
    while (running) {
      const batch = makeBatch(makeRecords(opts.records, {}, Math.max(1, opts.records / 2)));
      stats.sent.set(batch.batchId, batch);
      try {
        const res = await fetch(`${url}/v1/handshakes`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
          body: gzipSync(JSON.stringify(batch)),
        });
        const body = await res.text();
        stats.statuses.set(res.status, (stats.statuses.get(res.status) ?? 0) + 1);
        if (res.status === 202) {
          stats.acknowledged.set(batch.batchId, opts.records);
          if (marked && (JSON.parse(body) as { accepted: number }).accepted > 0) stats.acceptedAfterMark += 1;
        } else {
          const ra = res.headers.get('retry-after');
          if (ra) stats.retryAfterSeen.add(ra);
          await sleep(20);
        }
      } catch {
        // Connection refused or reset (the collector was killed): this batch was not acknowledged.
        stats.errors += 1;
        await sleep(20);
      }
    }
  };
  const done = Promise.all(Array.from({ length: opts.workers }, worker));
  return {
    stats,
    markFault: () => {
      marked = true;
    },
    stop: async () => {
      running = false;
      await done;
    },
  };
}

export async function resend(url: string, batch: HandshakeBatch): Promise<number> {
  const res = await fetch(`${url}/v1/handshakes`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    body: gzipSync(JSON.stringify(batch)),
  });
  await res.arrayBuffer();
  return res.status;
}

/** Polls until the collector's spool is empty (everything acknowledged is in the store). */
export async function waitForEmptySpool(c: Collector, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if ((await scrape(c, 'tlsrum_spool_rows')) === 0) return;
    await sleep(200);
  }
  throw new Error(`spool not empty after ${timeoutMs} ms`);
}
