import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import type { HandshakeBatch, HandshakeRecord } from '@tlsrum/shared';
import example from '@tlsrum/shared/examples/batch.json' with { type: 'json' };
import { buildApp } from '../../src/app';
import { toRow } from '../../src/ingest/to-row';
import { loadConfig } from '../../src/platform/config';
import { openStore, type Store } from '../../src/platform/store/clients';
import { viewsInForce } from '../../src/platform/store/migrate';
import { ALL_PHASES, type Phase } from '../../src/query/percentiles';
import { CUTS } from '../../src/query/sources';
import { freshStoreDir } from './store-template';

export interface TestApp {
  app: FastifyInstance;
  dataDir: string;
  logs: () => string;
  close: () => Promise<void>;
}

export function tempDir(prefix = 'tlsrum-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** A collector on a real embedded store in `dataDir` (a fresh store by default). */
export async function startApp(env: Record<string, string> = {}, dataDir = freshStoreDir()): Promise<TestApp> {
  const overrides = geoOverridesFileFor(dataDir);
  writeFileSync(overrides, '127.0.0.0/8 DE\n::1/128 DE\n');
  // Load shedding off unless a test turns it on: a busy CI machine lags the event loop past any
  // threshold, and a 503 there would be the machine's doing, not the code's.
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    GEOIP_OVERRIDES: overrides,
    MIN_CLIENTS_PER_CELL: '1',
    // Like the clients threshold, the k-sites rule is off unless a test turns it on: most tests ask public
    // routes over one site's data (no-site-reproduced.test.ts tests the rule).
    MIN_SITES_PER_CELL: '1',
    MAX_EVENT_LOOP_DELAY_MS: '0',
    RATE_LIMIT_PER_MINUTE: '0',
    QUERY_RATE_LIMIT_PER_MINUTE: '0',
    // No scheduled TLS probes of the test sites (names like www.example.com): tests talk to loopback only.
    PROBE_INTERVAL_MS: '0',
    // No monthly dataset export: a test exports when it means to (datasets tests).
    DATASET_MONTHLY_EXPORT: 'false',
    // No kept answers: most tests store records and ask the same question again at once (kept-answers.test.ts
    // turns them on).
    ANSWER_CACHE_SECONDS: '0',
    // Nor kept closed buckets of time series, for the same reason: tests write days-old rows straight into the
    // store, as no collector's ingest does (closed-buckets.test.ts turns them on).
    CLOSED_BUCKET_CACHE_BYTES: '0',
    ...env,
  });
  let logText = '';
  const logStream = new PassThrough();
  logStream.on('data', (chunk: Buffer) => (logText += chunk.toString()));
  const app = await buildApp(config, { logStream });
  await app.storeStatus.whenReady;
  return { app, dataDir, logs: () => logText, close: () => app.close() };
}

/** Runs `fn` on a fresh collector, then closes it and removes its data folder (whatever `fn` did). */
export async function withApp(env: Record<string, string>, fn: (t: TestApp) => Promise<void>): Promise<void> {
  const t = await startApp(env);
  try {
    await fn(t);
  } finally {
    await t.close();
    removeDir(t.dataDir);
  }
}

/** Beside the data folder, not in it: the store owns its folder. */
const geoOverridesFileFor = (dataDir: string) => `${dataDir}-geo.txt`;

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  rmSync(geoOverridesFileFor(dir), { force: true });
}

const base = example.records[0] as HandshakeRecord;

/** `n` valid records with current timestamps and `clients` distinct client tokens. */
export function makeRecords(n: number, overrides: Partial<HandshakeRecord> = {}, clients = n): HandshakeRecord[] {
  const now = Date.now();
  return Array.from({ length: n }, (_, i) => ({
    ...base,
    ts: now - i * 10,
    clientToken: `client-token-${String(i % clients).padStart(4, '0')}`,
    ...overrides,
  }));
}

/**
 * Records straight into the raw table (the ingest path has its own tests), as rows ingest would write for `country`,
 * counted as plausible: the data of a test are shaped for its arithmetic, not for realism. The rollups' views fill
 * as they land. A hostname is stored as the record's site only where `isRegisteredSite` says so (else '').
 */
export async function insertRecords(
  app: FastifyInstance,
  records: HandshakeRecord[],
  {
    country = 'DE',
    isRegisteredSite = () => false,
  }: { country?: string; isRegisteredSite?: (h: string) => boolean } = {},
): Promise<void> {
  const batch = { batchId: randomUUID(), agent: { name: 'tlsrum-test', version: '1' } };
  const rows = records.map((r) => ({
    ...toRow(r, { batch, country, receivedAt: r.ts, isRegisteredSite }),
    implausible: 0,
  }));
  await app.store.ingest.insert({ table: 'handshakes', values: rows, format: 'JSONEachRow' });
}

/** A cell of a query route's answer, as far as a comparison of the raw table and the rollup reads it. */
export interface AnswerCell {
  key: Record<string, string>;
  suppressed?: boolean;
  records?: number;
  clients?: number;
  mix?: unknown;
  tls?: { p50: number };
}

/**
 * The rollup's answer gives the raw table's figures: it was read from the rollup, its cells are the raw answer's
 * (keys, suppression, records, clients, mixes), and each shown cell's p50 is within the histogram's bound.
 */
export function expectSameAsRaw(
  rollup: { table: string; cells: AnswerCell[] },
  raw: { cells: AnswerCell[] },
  label?: string,
): void {
  const counted = (b: { cells: AnswerCell[] }) =>
    b.cells.map((c) => [c.key, c.suppressed ?? false, c.records, c.clients, c.mix]);
  expect(rollup.table, label).toBe('rollup');
  expect(counted(rollup), label).toEqual(counted(raw));
  for (const [i, c] of rollup.cells.entries())
    if (!c.suppressed)
      expect(Math.abs(c.tls!.p50 - raw.cells[i]!.tls!.p50) / raw.cells[i]!.tls!.p50, label).toBeLessThan(0.035);
}

export function makeBatch(records: HandshakeRecord[] = makeRecords(3), batchId = randomUUID()): HandshakeBatch {
  return { v: 1, batchId, sentAt: Date.now(), agent: { name: 'tlsrum-test', version: '1.0.0' }, records };
}

export function postBatch(
  app: FastifyInstance,
  body: unknown,
  opts: { gzip?: boolean; ip?: string; headers?: Record<string, string> } = {},
) {
  const json = typeof body === 'string' ? body : JSON.stringify(body);
  return app.inject({
    method: 'POST',
    url: '/v1/handshakes',
    remoteAddress: opts.ip ?? '127.0.0.1',
    headers: {
      'content-type': 'application/json',
      ...(opts.gzip ? { 'content-encoding': 'gzip' } : {}),
      ...opts.headers,
    },
    payload: opts.gzip ? gzipSync(json) : json,
  });
}

/** Rows of `handshakes` read through a separate client, as an operator would. */
export async function storedRows(app: FastifyInstance, where = '1'): Promise<Record<string, unknown>[]> {
  await app.ingest.flush();
  const rs = await app.store.query.query({
    query: `SELECT * FROM handshakes WHERE ${where} ORDER BY ts`,
    format: 'JSONEachRow',
  });
  return rs.json<Record<string, unknown>>();
}

export async function countRows(store: Store | FastifyInstance['store']): Promise<number> {
  const rs = await store.query.query({ query: 'SELECT count() AS n FROM handshakes', format: 'JSONEachRow' });
  return Number((await rs.json<{ n: number }>())[0]!.n);
}

export { freshStoreDir, openStore, viewsInForce };

/** The value of one series in the exposition text (undefined when absent). */
export function metricValue(text: string, series: string): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const sp = line.lastIndexOf(' ');
    if (line.slice(0, sp) === series) return Number(line.slice(sp + 1));
  }
  return undefined;
}

/** The phases whose histograms a rollup table keeps: those its cuts declare (query/sources.ts), else every phase. */
export const keptPhases = (table: string): readonly Phase[] =>
  CUTS.find((c) => c.table === table)?.phases ?? ALL_PHASES;
