/**
 * Rows wait here for the store and leave as large inserts: one insert per ≤ flushMaxRows rows or every
 * flushIntervalMs, whichever comes first (chDB costs ~10 ms per insert, whatever its size). A failed
 * insert keeps its rows and is retried with exponential backoff; when the rows waiting reach
 * maxBufferedRows, `accepts()` turns false and ingest answers 503 instead of acknowledging what it
 * could not keep. `close()` flushes everything before it returns.
 */
import { createHash } from 'node:crypto';
import type { ClickHouseClient } from '@clickhouse/client';
import type { HandshakeRow } from './to-row';

export interface WriteBufferOptions {
  client: ClickHouseClient;
  flushIntervalMs: number;
  flushMaxRows: number;
  maxBufferedRows: number;
  onFlushed?: (rows: number, ms: number) => void;
  onError?: (err: unknown, attempt: number) => void;
}

interface Pending {
  rows: HandshakeRow[];
  /** insert_deduplication_token: the batch ids in this insert, so a retried insert is stored once. */
  batchIds: string[];
  /** A chunk that was tried once: retried exactly as it was, so its dedup token stays the same. */
  sealed?: boolean;
}

export class WriteBuffer {
  private queue: Pending[] = [];
  private queuedRows = 0;
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;
  private failures = 0;
  private retryAt = 0;
  private closed = false;

  constructor(private readonly opts: WriteBufferOptions) {}

  get size(): number {
    return this.queuedRows;
  }

  /** Whether `rows` more can be taken without going over the cap. */
  accepts(rows: number): boolean {
    return !this.closed && this.queuedRows + rows <= this.opts.maxBufferedRows;
  }

  /** Seconds a client should wait before retrying when `accepts` is false. */
  retryAfterSeconds(): number {
    return Math.max(1, Math.ceil((this.retryAt - Date.now()) / 1000));
  }

  add(batchId: string, rows: HandshakeRow[]): void {
    if (this.closed) throw new Error('write buffer is closed');
    this.queue.push({ rows, batchIds: [batchId] });
    this.queuedRows += rows.length;
    if (this.queuedRows >= this.opts.flushMaxRows) void this.flush();
    else this.schedule(this.opts.flushIntervalMs);
  }

  private schedule(ms: number): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, ms);
  }

  /** Inserts everything queued now (in chunks of ≤ flushMaxRows), one flush at a time. */
  flush(): Promise<void> {
    if (this.flushing) return this.flushing;
    this.flushing = this.drain().finally(() => {
      this.flushing = null;
      if (this.queuedRows > 0 && !this.closed) this.schedule(this.failures ? this.backoffMs() : this.opts.flushIntervalMs);
    });
    return this.flushing;
  }

  private backoffMs(): number {
    return Math.min(30_000, 250 * 2 ** Math.min(this.failures, 7));
  }

  private takeChunk(): Pending {
    if (this.queue[0]?.sealed) return this.queue.shift()!;
    const chunk: Pending = { rows: [], batchIds: [] };
    while (this.queue.length) {
      const next = this.queue[0]!;
      if (next.sealed || (chunk.rows.length && chunk.rows.length + next.rows.length > this.opts.flushMaxRows)) break;
      this.queue.shift();
      chunk.rows.push(...next.rows);
      chunk.batchIds.push(...next.batchIds);
    }
    return chunk;
  }

  private async drain(): Promise<void> {
    while (this.queue.length) {
      const chunk = this.takeChunk();
      const started = Date.now();
      try {
        await this.opts.client.insert({
          table: 'handshakes',
          values: chunk.rows,
          format: 'JSONEachRow',
          clickhouse_settings: { insert_deduplication_token: dedupToken(chunk.batchIds) },
        });
      } catch (err) {
        // Put the chunk back in front, untouched: the same rows and token are retried later.
        this.queue.unshift({ ...chunk, sealed: true });
        this.failures += 1;
        this.retryAt = Date.now() + this.backoffMs();
        this.opts.onError?.(err, this.failures);
        return;
      }
      this.failures = 0;
      this.queuedRows -= chunk.rows.length;
      this.opts.onFlushed?.(chunk.rows.length, Date.now() - started);
    }
  }

  /** Stops taking rows and flushes what is queued, retrying a failing store until `deadline`. */
  async close(deadlineMs = 10_000): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const until = Date.now() + deadlineMs;
    while (this.queuedRows > 0 && Date.now() < until) {
      await this.flush();
      if (this.queuedRows > 0) await new Promise((r) => setTimeout(r, Math.min(this.backoffMs(), Math.max(0, until - Date.now()))));
    }
  }
}

function dedupToken(batchIds: string[]): string {
  return createHash('sha256').update(batchIds.join(',')).digest('hex');
}
