/**
 * The ingest benchmark's load generator, run as its own process (`startLoad` below spawns it) so that
 * generating load never shares an event loop with the parent's bookkeeping. autocannon sends gzip
 * batches over LOAD_CONNECTIONS connections for LOAD_WARMUP_SECONDS, tells the parent (which samples
 * the server's CPU there), then for LOAD_SECONDS, and sends back both results and, with LOAD_TRACK=1,
 * the batch ids answered 202 in either phase.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { gzipSync } from 'node:zlib';
import autocannon from 'autocannon';
import { makeBenchBatch, rng, uuid } from './records';
import { repoRoot } from './processes';

export const RECORDS_PER_BATCH = 20;
const TEMPLATES = 2000;
/** Requests per connection before the generator opens a new one: under the collector's MAX_REQUESTS_PER_SOCKET. */
const RECONNECT_AFTER_REQUESTS = 900;

export interface LoadResult {
  requestsPerSec: number;
  recordsPerSec: number;
  accepted: number;
  responses2xx: number;
  non2xx: number;
  errors: number;
  p50: number;
  p99: number;
  /** non-202 answers by status and the collector's own message (429 rate limit, 503 spool full or pressure, …) */
  reasons: Record<string, number>;
}

/** "503 the collector cannot take more records now; retry later": the status and the message of an error answer (the body's `message`). */
function refusalReason(status: number, body: string): string {
  try {
    const message = (JSON.parse(body) as { message?: unknown }).message;
    if (typeof message === 'string') return `${status} ${message}`;
  } catch {
    /* not JSON: named by its first characters below */
  }
  const text = String(body ?? '').slice(0, 80);
  return text ? `${status} ${text}` : `${status} (no body)`;
}

type Message = { type: 'warm' } | { type: 'done'; warm: LoadResult; run: LoadResult; acknowledgedIds: string[] };

/**
 * Every request needs its own batchId (the collector stores a resent batch once). Gzipping 20 records
 * per request would load the generator's core, so each body is two gzip members: a tiny fresh one
 * with the batch id, then one of TEMPLATES pre-compressed record arrays. Multi-member gzip is valid
 * gzip (RFC 1952 §2.2); the collector inflates it like any other body.
 */
function bodyFactory(): () => { batchId: string; body: Buffer } {
  const r = rng(42);
  const tails = Array.from({ length: TEMPLATES }, () => {
    const { batchId: _id, v: _v, ...rest } = makeBenchBatch(r, RECORDS_PER_BATCH);
    return gzipSync(JSON.stringify(rest).slice(1)); // without the leading "{"
  });
  let i = 0;
  const ids = rng(7);
  return () => {
    const batchId = uuid(ids);
    return {
      batchId,
      body: Buffer.concat([gzipSync(`{"v":1,"batchId":"${batchId}",`, { level: 1 }), tails[i++ % TEMPLATES]!]),
    };
  };
}

async function load(
  url: string,
  connections: number,
  seconds: number,
  nextBody: ReturnType<typeof bodyFactory>,
  acknowledged: string[] | null,
): Promise<LoadResult> {
  let accepted = 0;
  const reasons: Record<string, number> = {};
  const result = await autocannon({
    url,
    connections,
    duration: seconds,
    // The collector closes a keep-alive connection after MAX_REQUESTS_PER_SOCKET requests (1 000 by default).
    // A browser then opens a new one; autocannon keeps sending on it and Node answers each of those with a
    // bare 503, so a run would stop at connections × 1 000 accepted requests. Open a new connection first, as a client does.
    reconnectRate: RECONNECT_AFTER_REQUESTS,
    requests: [
      {
        method: 'POST',
        path: '/v1/handshakes',
        headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
        // autocannon's context is per connection, and a connection has one request in flight.
        setupRequest: (req, context) => {
          const next = nextBody();
          (context as { batchId?: string }).batchId = next.batchId;
          return { ...req, body: next.body };
        },
        onResponse: (status, body, context) => {
          if (status !== 202) {
            const reason = refusalReason(status, body);
            reasons[reason] = (reasons[reason] ?? 0) + 1;
            return;
          }
          const n = (JSON.parse(body) as { accepted: number }).accepted;
          accepted += n;
          if (acknowledged && n > 0) acknowledged.push((context as { batchId: string }).batchId);
        },
      },
    ],
  });
  return {
    requestsPerSec: result.requests.average,
    recordsPerSec: accepted / seconds,
    accepted,
    responses2xx: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    p50: result.latency.p50,
    p99: result.latency.p99,
    reasons,
  };
}

/** Runs the generator in a child process; `onWarm` is called between the warm-up and the measured run. */
export async function startLoad(opts: {
  url: string;
  connections: number;
  warmupSeconds: number;
  seconds: number;
  track: boolean;
  onWarm: () => void;
}) {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'bench/lib/load-generator.ts'], {
    cwd: repoRoot,
    env: {
      ...process.env,
      LOAD_URL: opts.url,
      LOAD_CONNECTIONS: String(opts.connections),
      LOAD_WARMUP_SECONDS: String(opts.warmupSeconds),
      LOAD_SECONDS: String(opts.seconds),
      LOAD_TRACK: opts.track ? '1' : '0',
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let done: Extract<Message, { type: 'done' }> | null = null;
  proc.on('message', (m: Message) => {
    if (m.type === 'warm') opts.onWarm();
    else done = m;
  });
  const [code] = await once(proc, 'exit');
  if (!done) throw new Error(`load generator exited with ${code} before reporting`);
  return done as Extract<Message, { type: 'done' }>;
}

async function child(): Promise<void> {
  const env = (name: string) => {
    const v = process.env[name];
    if (v === undefined) throw new Error(`${name} is not set`);
    return v;
  };
  const url = env('LOAD_URL');
  const connections = Number(env('LOAD_CONNECTIONS'));
  const acknowledged = env('LOAD_TRACK') === '1' ? [] : null;
  const nextBody = bodyFactory();
  const warm = await load(url, connections, Number(env('LOAD_WARMUP_SECONDS')), nextBody, acknowledged);
  process.send!({ type: 'warm' } satisfies Message);
  const run = await load(url, connections, Number(env('LOAD_SECONDS')), nextBody, acknowledged);
  process.send!({ type: 'done', warm, run, acknowledgedIds: acknowledged ?? [] } satisfies Message, () =>
    process.exit(0),
  );
}

if (process.env.LOAD_URL && process.send)
  void child().catch((err) => {
    console.error(err);
    process.exit(1);
  });
