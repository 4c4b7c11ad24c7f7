/**
 * Ingest from the route's point of view: duplicate check → spool append (durable) → 202, with the
 * flusher moving segments into the store behind it. Replaces the in-memory write buffer; the app
 * still decorates it as `writeBuffer` too (`flush()`, `size`) so existing callers keep working.
 *
 * Duplicates: a batch id is remembered from the moment its append starts. A copy that arrives while
 * the first is still being written waits for that write and shares its outcome, so five concurrent
 * copies are written once and none is answered 202 before the data is on disk.
 */
import { join } from 'node:path';
import { Flusher } from './flusher';
import { RecentBatches } from './recent-batches';
import { Spool, SpoolFullError, type RowFormat, type SealedSegment, type SegmentContent } from './spool';

export interface PipelineOptions {
  spoolDir: string;
  spoolMaxBytes: number;
  maxBufferedRows: number;
  flushMaxRows: number;
  flushIntervalMs: number;
  recentBatches: number;
  insert: (content: SegmentContent, dedupToken: string) => Promise<void>;
  whenReady: Promise<void>;
  onFlushed?: (segment: SealedSegment, ms: number) => void;
  onStoreError?: (err: unknown, attempt: number, retryInMs: number) => void;
  /** Which of these batch ids the store already holds: checked before replaying a suspect segment. */
  storedBatchIds?: (batchIds: string[]) => Promise<Set<string>>;
}

export type SubmitResult = { status: 'accepted' } | { status: 'duplicate' };

export class IngestPipeline {
  readonly spool: Spool;
  readonly flusher: Flusher;
  readonly recent: RecentBatches;
  private readonly inflight = new Map<string, Promise<void>>();
  readonly recovered: { segments: number; rows: number; tornBytes: number };

  constructor(opts: PipelineOptions) {
    this.spool = new Spool({
      dir: opts.spoolDir,
      maxBytes: opts.spoolMaxBytes,
      maxRows: opts.maxBufferedRows,
      segmentMaxRows: opts.flushMaxRows,
      segmentMaxAgeMs: opts.flushIntervalMs,
    });
    this.recent = new RecentBatches(opts.recentBatches, join(opts.spoolDir, 'batches.journal'));
    const { batchIds, ...recovered } = this.spool.recover();
    for (const id of batchIds) this.recent.add(id);
    this.recovered = recovered;
    this.flusher = new Flusher(this.spool, {
      insert: opts.insert,
      whenReady: opts.whenReady,
      // Before the segment's file is deleted: a kill -9 between the delete and the journal once left
      // batch ids in neither, and the clients' resends of those batches were stored twice (fault test (a)).
      onStored: (content) => this.recent.journal(content.batchIds),
      onFlushed: (segment, _content, ms) => opts.onFlushed?.(segment, ms),
      onError: opts.onStoreError,
      ...(opts.storedBatchIds ? { storedBatchIds: opts.storedBatchIds } : {}),
    });
  }

  isDuplicate(batchId: string): boolean {
    return this.recent.has(batchId);
  }

  /**
   * Resolves when the batch is durable (or was already): the caller answers 202. Rejects with
   * SpoolFullError at the cap, or with the write error; then nothing of it is kept.
   */
  async submit(batchId: string, rows: string, rowCount: number, format: RowFormat): Promise<SubmitResult> {
    const id = batchId.toLowerCase();
    if (this.recent.has(id)) {
      const first = this.inflight.get(id);
      if (first) await first;
      return { status: 'duplicate' };
    }
    const frame = Spool.frame(id, rows, rowCount, format);
    if (!this.spool.accepts(rowCount, frame.length)) throw new SpoolFullError('spool is full');
    this.recent.add(id);
    const written = this.spool.append(frame, rowCount);
    this.inflight.set(id, written);
    try {
      await written;
    } catch (err) {
      this.recent.delete(id);
      throw err;
    } finally {
      this.inflight.delete(id);
    }
    return { status: 'accepted' };
  }

  accepts(rows: number): boolean {
    return this.spool.accepts(rows, 0);
  }

  retryAfterSeconds(): number {
    return this.flusher.retryAfterSeconds();
  }

  /** Rows acknowledged but not yet in the store. */
  get size(): number {
    return this.spool.rows;
  }

  /** Seals what is spooled and inserts it now (tests, shutdown). Never throws: failures are retried. */
  flush(): Promise<void> {
    return this.flusher.flushNow();
  }

  /** Graceful shutdown: stop taking batches, write what is pending, then insert until `deadlineMs`. */
  async close(deadlineMs: number): Promise<void> {
    await this.spool.close();
    await this.flusher.drain(deadlineMs);
  }
}

export { SpoolFullError };
