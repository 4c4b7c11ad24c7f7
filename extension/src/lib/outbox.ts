/**
 * The queue of records waiting to be sent, and their delivery to the collector. Only the background
 * uses it. Everything lives in storage.local under one key, written in one `set` per change, so a
 * service worker stopped at any point loses nothing and sends nothing twice:
 *
 * - `records`: waiting records, exactly as they will be sent. Bounded: beyond the cap the oldest are
 *   dropped and counted in `dropped`.
 * - `pending`: the batch being sent. It keeps its `batchId` until the collector answers 2xx, so a
 *   batch whose answer was lost is resent with the same id and the collector stores it once.
 * - failures back off exponentially with jitter; 429/503 `Retry-After` is honoured.
 * - a batch carries the records of one client token: the token rotates at UTC midnight, and a batch
 *   holding yesterday's and today's records would tie the two tokens together by its id.
 */
import type { Agent, HandshakeBatch, HandshakeRecord } from '@tlsrum/shared';
import { SCHEMA_VERSION } from '@tlsrum/shared/constants';
import { backoffDelay, retryAfterMs } from './backoff';
import { FETCH_TIMEOUT_MS, MAX_BATCH_RECORDS, MAX_QUEUED_RECORDS, MAX_RECORD_AGE_MS } from './constants';
import { gzip } from './gzip';
import { Mutex } from '@tlsrum/shared/mutex';
import { readKey, type KeyValueArea } from './storage';

export interface PendingBatch {
  batchId: string;
  sentAt: number;
  records: HandshakeRecord[];
  /** `pages[i]`: the site `records[i]` was measured on. Kept on this device, never sent. */
  pages: (string | null)[];
}

export interface OutboxState {
  records: HandshakeRecord[];
  /**
   * `pages[i]`: the hostname of the page `records[i]` was measured on (null when unknown: records
   * queued before storage v2). Only for "exclude this site", which drops that site's waiting records;
   * kept on this device, never sent.
   */
  pages: (string | null)[];
  pending: PendingBatch | null;
  /** Consecutive failed attempts (drives the backoff). */
  attempt: number;
  /** No automatic attempt before this time (epoch ms). */
  nextAttemptAt: number;
  /** Oldest records dropped because the queue was full. */
  dropped: number;
  /** Records the collector refused as invalid (4xx): resending cannot help. */
  rejected: number;
  /** Records older than the collector accepts, dropped before sending. */
  expired: number;
  /** Records the collector accepted. */
  sent: number;
  lastError: string | null;
}

export const EMPTY_OUTBOX: OutboxState = {
  records: [],
  pages: [],
  pending: null,
  attempt: 0,
  nextAttemptAt: 0,
  dropped: 0,
  rejected: 0,
  expired: 0,
  sent: 0,
  lastError: null,
};

export const OUTBOX_KEY = 'outbox';

export interface OutboxOptions {
  area: KeyValueArea;
  agent: Agent;
  /** Base URL of the collector, read at each send (the user may change it). */
  collectorUrl: () => Promise<string>;
  fetch?: typeof fetch;
  gzip?: (text: string) => Promise<Uint8Array>;
  now?: () => number;
  random?: () => number;
  uuid?: () => string;
  /** Called with the time of the next automatic attempt after a failure (the background sets an alarm). */
  onRetryScheduled?: (at: number) => void;
  maxQueued?: number;
  maxBatch?: number;
  timeoutMs?: number;
}

export interface FlushResult {
  /** Records accepted by the collector during this flush. */
  sent: number;
  /** True when nothing is left to send. */
  ok: boolean;
  /** True when the flush did nothing because a retry is scheduled later. */
  deferred: boolean;
  error: string | null;
}

type Outcome =
  | { kind: 'accepted' }
  | { kind: 'retry'; delayMs: number | null; error: string }
  | { kind: 'rejected'; status: number; error: string };

/** Batches sent per flush at most: a huge backlog drains over several alarms, not in one burst. */
const MAX_BATCHES_PER_FLUSH = 10;

/**
 * Removes from the queue and returns up to `max` records of the first record's client token (their
 * order kept); the records of other tokens wait for their own batches.
 */
function takeOneClient(
  s: Pick<OutboxState, 'records' | 'pages'>,
  max: number,
): Pick<PendingBatch, 'records' | 'pages'> {
  const token = s.records[0]?.clientToken;
  const taken = new Set<number>();
  for (let i = 0; i < s.records.length && taken.size < max; i++) if (s.records[i]!.clientToken === token) taken.add(i);
  const out = { records: s.records.filter((_, i) => taken.has(i)), pages: s.pages.filter((_, i) => taken.has(i)) };
  s.records = s.records.filter((_, i) => !taken.has(i));
  s.pages = s.pages.filter((_, i) => !taken.has(i));
  return out;
}

export class Outbox {
  private readonly mutex = new Mutex();
  private readonly o: Required<Omit<OutboxOptions, 'onRetryScheduled'>> & Pick<OutboxOptions, 'onRetryScheduled'>;

  constructor(options: OutboxOptions) {
    this.o = {
      fetch: (...args) => fetch(...args),
      gzip,
      now: () => Date.now(),
      random: () => Math.random(),
      uuid: () => crypto.randomUUID(),
      maxQueued: MAX_QUEUED_RECORDS,
      maxBatch: MAX_BATCH_RECORDS,
      timeoutMs: FETCH_TIMEOUT_MS,
      ...options,
    };
  }

  state(): Promise<OutboxState> {
    return this.mutex.run(() => this.read());
  }

  /** Appends records measured on page `page`; drops the oldest beyond the cap. Returns how many are waiting. */
  enqueue(records: HandshakeRecord[], page: string | null = null): Promise<number> {
    return this.mutex.run(async () => {
      const s = await this.read();
      s.records.push(...records);
      s.pages.push(...records.map(() => page));
      const room = this.o.maxQueued - (s.pending?.records.length ?? 0);
      const excess = s.records.length - Math.max(room, 0);
      if (excess > 0) {
        s.records.splice(0, excess);
        s.pages.splice(0, excess);
        s.dropped += excess;
      }
      await this.write(s);
      return s.records.length + (s.pending?.records.length ?? 0);
    });
  }

  /**
   * Sends waiting records, batch by batch, until the queue is empty, a send fails, or the per-flush
   * limit is reached. `force` (the user's "send now") ignores the backoff time, not the batch ids.
   */
  flush({ force = false } = {}): Promise<FlushResult> {
    return this.mutex.run(async () => {
      let sent = 0;
      for (let i = 0; i < MAX_BATCHES_PER_FLUSH; i++) {
        const s = await this.read();
        const now = this.o.now();
        if (!force && now < s.nextAttemptAt) return { sent, ok: false, deferred: true, error: s.lastError };
        if (!s.pending) {
          const keep = s.records.map((r) => r.ts >= now - MAX_RECORD_AGE_MS);
          s.expired += keep.filter((k) => !k).length;
          s.records = s.records.filter((_, i) => keep[i]);
          s.pages = s.pages.filter((_, i) => keep[i]);
          if (s.records.length === 0) {
            await this.write(s);
            return { sent, ok: true, deferred: false, error: null };
          }
          s.pending = { batchId: this.o.uuid(), sentAt: now, ...takeOneClient(s, this.o.maxBatch) };
          // Persist the batch (and its id) before sending: if we are stopped mid-request, the next
          // flush resends this very batch.
          await this.write(s);
        }
        const pending = s.pending;
        const outcome = await this.send(pending);
        if (outcome.kind === 'accepted') {
          s.sent += pending.records.length;
          sent += pending.records.length;
          Object.assign(s, { pending: null, attempt: 0, nextAttemptAt: 0, lastError: null });
          await this.write(s);
          continue;
        }
        if (outcome.kind === 'rejected') {
          if (outcome.status === 413 && pending.records.length > 1) {
            // Too large for this collector: send it in halves. The refused batch was not stored, so
            // the halves may take new ids.
            const half = Math.ceil(pending.records.length / 2);
            s.records.unshift(...pending.records.slice(half));
            s.pages.unshift(...pending.pages.slice(half));
            s.pending = {
              batchId: this.o.uuid(),
              sentAt: now,
              records: pending.records.slice(0, half),
              pages: pending.pages.slice(0, half),
            };
          } else {
            s.rejected += pending.records.length;
            s.pending = null;
          }
          s.lastError = outcome.error;
          await this.write(s);
          continue;
        }
        const delay = outcome.delayMs ?? backoffDelay(s.attempt, this.o.random());
        s.attempt += 1;
        s.nextAttemptAt = now + delay;
        s.lastError = outcome.error;
        await this.write(s);
        this.o.onRetryScheduled?.(s.nextAttemptAt);
        return { sent, ok: false, deferred: false, error: outcome.error };
      }
      const s = await this.read();
      return { sent, ok: !s.pending && s.records.length === 0, deferred: false, error: null };
    });
  }

  /** Drops everything waiting and every counter (the user turned measurement off). Returns how many records were dropped. */
  clear(): Promise<number> {
    return this.mutex.run(async () => {
      const s = await this.read();
      await this.write(EMPTY_OUTBOX);
      return s.records.length + (s.pending?.records.length ?? 0);
    });
  }

  /**
   * Drops the waiting records of one site (the user excluded it): those measured on its pages, and
   * those whose registered `site` it is. A batch being resent keeps its id: if the collector already
   * stored it, the smaller resend is a duplicate it ignores; if not, only the rest is stored.
   */
  dropSite(host: string): Promise<number> {
    return this.mutex.run(async () => {
      const s = await this.read();
      const ofSite = (r: HandshakeRecord, page: string | null | undefined) => page === host || r.site === host;
      const before = s.records.length + (s.pending?.records.length ?? 0);
      const keep = s.records.map((r, i) => !ofSite(r, s.pages[i]));
      s.records = s.records.filter((_, i) => keep[i]);
      s.pages = s.pages.filter((_, i) => keep[i]);
      if (s.pending) {
        const p = s.pending;
        const keepP = p.records.map((r, i) => !ofSite(r, p.pages[i]));
        s.pending = keepP.some(Boolean)
          ? { ...p, records: p.records.filter((_, i) => keepP[i]), pages: p.pages.filter((_, i) => keepP[i]) }
          : null;
        if (!s.pending) Object.assign(s, { attempt: 0, nextAttemptAt: 0, lastError: null });
      }
      const dropped = before - s.records.length - (s.pending?.records.length ?? 0);
      if (dropped) await this.write(s);
      return dropped;
    });
  }

  private async send(batch: PendingBatch): Promise<Outcome> {
    const body: HandshakeBatch = {
      v: SCHEMA_VERSION,
      batchId: batch.batchId,
      sentAt: batch.sentAt,
      agent: this.o.agent,
      records: batch.records,
    };
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.o.timeoutMs);
    try {
      const url = `${await this.o.collectorUrl()}/v1/handshakes`;
      const payload = await this.o.gzip(JSON.stringify(body));
      const res = await this.o.fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
        body: payload as BufferSource,
        signal: controller.signal,
        credentials: 'omit',
        cache: 'no-store',
      });
      // Drain the body so the connection can be reused; its content does not matter.
      await res.arrayBuffer().catch(() => undefined);
      if (res.ok) return { kind: 'accepted' };
      const error = `collector answered ${res.status}`;
      if (res.status === 429 || res.status === 503) {
        return { kind: 'retry', delayMs: retryAfterMs(res.headers.get('retry-after'), this.o.now()), error };
      }
      if (res.status >= 400 && res.status < 500 && res.status !== 408)
        return { kind: 'rejected', status: res.status, error };
      return { kind: 'retry', delayMs: null, error };
    } catch (err) {
      const error = controller.signal.aborted
        ? 'collector did not answer in time'
        : `collector unreachable: ${(err as Error).message}`;
      return { kind: 'retry', delayMs: null, error };
    } finally {
      clearTimeout(timer);
    }
  }

  private async read(): Promise<OutboxState> {
    const s = await readKey<Partial<OutboxState>>(this.o.area, OUTBOX_KEY, {});
    const records = [...(s.records ?? [])];
    // pages[] always as long as records[] (storage/migrate.ts fills it for older queues).
    const pages = records.map((_, i) => s.pages?.[i] ?? null);
    const pending = s.pending
      ? { ...s.pending, pages: s.pending.records.map((_, i) => s.pending!.pages?.[i] ?? null) }
      : null;
    return { ...EMPTY_OUTBOX, ...s, records, pages, pending };
  }

  private write(s: OutboxState): Promise<void> {
    return this.o.area.set({ [OUTBOX_KEY]: s });
  }
}
