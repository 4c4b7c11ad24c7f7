/**
 * Sends records to a collector: `POST {base}/v1/handshakes`, gzip JSON, batches of at most 500 records,
 * each with its own batchId (the collector's idempotency key, so a batch resent after a timeout or a
 * 503 is stored once). 429/503 are retried after their Retry-After (bounded); 4xx other than those are
 * final: the collector said the batch is wrong, resending will not help. With the site's read token
 * (`token`) the records are stored as the site owner's own runs.
 */
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { gzip as gzipCb } from 'node:zlib';
import { MAX_RECORDS_PER_BATCH, SCHEMA_VERSION, type HandshakeBatch, type HandshakeRecord } from '@tlsrum/shared';

const gzip = promisify(gzipCb);

export interface SendOptions {
  /** Collector base URL, e.g. http://127.0.0.1:8787 */
  collector: string;
  agent: { name: string; version: string };
  /**
   * The site's read token, sent as `Authorization: Bearer`: the collector then stores the records as the site
   * owner's own runs, which that token reads without the people threshold (every record must be that site's).
   */
  token?: string;
  batchSize?: number;
  /** Attempts per batch (default 5). */
  attempts?: number;
  /** Per request (default 15 s). */
  timeoutMs?: number;
  /** Upper bound of one wait between attempts (default 10 s). */
  maxBackoffMs?: number;
}

export interface SendResult {
  batches: number;
  accepted: number;
  batchIds: string[];
}

export class CollectorError extends Error {
  override name = 'CollectorError';
}

export function endpointOf(collector: string): string {
  let u: URL;
  try {
    u = new URL(collector);
  } catch {
    throw new CollectorError(`collector must be an http(s) URL, got "${collector}"`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new CollectorError(`collector must be an http(s) URL, got "${collector}"`);
  return new URL(
    u.pathname.endsWith('/v1/handshakes') ? u.pathname : `${u.pathname.replace(/\/$/, '')}/v1/handshakes`,
    u,
  ).href;
}

export function toBatches(
  records: readonly HandshakeRecord[],
  agent: SendOptions['agent'],
  size = MAX_RECORDS_PER_BATCH,
): HandshakeBatch[] {
  if (!Number.isInteger(size) || size < 1 || size > MAX_RECORDS_PER_BATCH)
    throw new RangeError(`batch size must be 1–${MAX_RECORDS_PER_BATCH}`);
  const batches: HandshakeBatch[] = [];
  for (let i = 0; i < records.length; i += size) {
    batches.push({
      v: SCHEMA_VERSION,
      batchId: randomUUID(),
      sentAt: Date.now(),
      agent,
      records: records.slice(i, i + size),
    });
  }
  return batches;
}

export async function sendRecords(records: readonly HandshakeRecord[], o: SendOptions): Promise<SendResult> {
  const url = endpointOf(o.collector);
  const result: SendResult = { batches: 0, accepted: 0, batchIds: [] };
  for (const batch of toBatches(records, o.agent, o.batchSize)) {
    result.accepted += await sendBatch(url, batch, o);
    result.batches++;
    result.batchIds.push(batch.batchId);
  }
  return result;
}

async function sendBatch(url: string, batch: HandshakeBatch, o: SendOptions): Promise<number> {
  const attempts = o.attempts ?? 5;
  const maxBackoff = o.maxBackoffMs ?? 10_000;
  let lastError = '';
  for (let attempt = 1; attempt <= attempts; attempt++) {
    // sentAt is the time of this attempt; the batchId stays, so a retried batch is stored once.
    const body = await gzip(JSON.stringify({ ...batch, sentAt: Date.now() }));
    let wait = Math.min(maxBackoff, 500 * 2 ** (attempt - 1));
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-encoding': 'gzip',
          ...(o.token ? { authorization: `Bearer ${o.token}` } : {}),
        },
        body,
        signal: AbortSignal.timeout(o.timeoutMs ?? 15_000),
      });
      const text = await res.text();
      if (res.status === 202 || res.status === 200) {
        const accepted = (JSON.parse(text) as { accepted?: number }).accepted;
        return typeof accepted === 'number' ? accepted : batch.records.length;
      }
      lastError = `HTTP ${res.status}: ${messageOf(text)}`;
      if (res.status === 401 && o.token)
        throw new CollectorError(`collector refused the read token given with --token: ${lastError}`);
      if (res.status !== 429 && res.status !== 503 && res.status < 500)
        throw new CollectorError(`collector refused the batch: ${lastError}`);
      const retryAfter = Number(res.headers.get('retry-after'));
      if (Number.isFinite(retryAfter) && retryAfter > 0) wait = Math.min(maxBackoff, retryAfter * 1000);
    } catch (err) {
      if (err instanceof CollectorError) throw err;
      const cause = (err as { cause?: { code?: string } }).cause?.code;
      lastError = `${(err as Error).message}${cause ? ` (${cause})` : ''}`;
    }
    if (attempt < attempts) await new Promise((r) => setTimeout(r, wait));
  }
  throw new CollectorError(`collector unreachable at ${url} after ${attempts} attempts: ${lastError}`);
}

/** The collector's own words (`{message}` of its JSON error), else the start of the body. */
function messageOf(text: string): string {
  try {
    const message = (JSON.parse(text) as { message?: unknown }).message;
    if (typeof message === 'string' && message) return message.slice(0, 300);
  } catch {
    // Not JSON (a proxy's page): the start of it says enough.
  }
  return text.slice(0, 300);
}
