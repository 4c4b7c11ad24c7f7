/**
 * Ingest from the route's point of view: duplicate check → rows encoded (columns.ts, TabSeparated) →
 * spool append (durable) → 202, with the flusher moving segments into the store behind it.
 *
 * TabSeparated: the store parses it several times faster than JSONEachRow (docs/decisions/0003-tabseparated-inserts.md).
 * Each segment's header records the columns (spool-format.ts), so a later release replays it as written.
 *
 * Duplicates: a batch id is remembered from the moment its append starts. A copy that arrives while
 * the first is still being written waits for that write and shares its outcome, so five concurrent
 * copies are written once and none is answered 202 before the data is on disk.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { HandshakeBatch } from '@tlsrum/shared';
import { INSERT_COLUMNS, type RowContext } from './columns';
import { encodeRecordTsv } from './encode-rows';
import { Flusher } from './flusher';
import { countQuarantined, REPLAY_POLL_MS, type QuarantineReason } from './spool/quarantine';
import { RecentBatches } from './spool/recent-batches';
import { Spool, SpoolFullError, type SealedSegment } from './spool/spool';
import type { SegmentContent, SegmentLayout } from './spool/format';
import { isContentError } from './store-errors';

const DAY_MS = 86_400_000;

/** What this release writes: TabSeparated rows with every registry column. */
export const CURRENT_LAYOUT: SegmentLayout = { format: 'TabSeparated', columns: INSERT_COLUMNS };

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
  /** Inserts of a segment the store refuses for its content before it is quarantined. */
  quarantineAfterTries: number;
  onQuarantined?: (segment: SealedSegment, id: string, reason: QuarantineReason) => void;
  /** What a poll of the replay folder did (segments taken in, quarantined again as unreadable, left for an I/O error). */
  onReplay?: (r: { segments: SealedSegment[]; quarantined: string[]; errors: string[] }) => void;
}

/** Where a batch came from, besides its records: the request's country and clock, the registered sites. */
export type BatchOrigin = Omit<RowContext, 'batch'>;

export type SubmitResult = { status: 'accepted' } | { status: 'duplicate' };

export class IngestPipeline {
  readonly spool: Spool;
  readonly flusher: Flusher;
  readonly recent: RecentBatches;
  private readonly inflight = new Map<string, Promise<void>>();
  readonly recovered: {
    segments: number;
    rows: number;
    tornBytes: number;
    quarantined: string[];
    replayErrors: string[];
  };
  private readonly replayTimer: NodeJS.Timeout;

  constructor(private readonly opts: PipelineOptions) {
    this.spool = new Spool({
      dir: opts.spoolDir,
      maxBytes: opts.spoolMaxBytes,
      maxRows: opts.maxBufferedRows,
      segmentMaxRows: opts.flushMaxRows,
      segmentMaxAgeMs: opts.flushIntervalMs,
      layout: CURRENT_LAYOUT,
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
      isContentError,
      quarantineAfter: opts.quarantineAfterTries,
      ...(opts.onQuarantined ? { onQuarantined: opts.onQuarantined } : {}),
    });
    this.replayTimer = setInterval(() => this.adoptReplays(), REPLAY_POLL_MS);
    this.replayTimer.unref();
  }

  /** Takes in segments put back for replay (`pnpm collector spool replay`); start-up does this in `recover`. */
  adoptReplays(): SealedSegment[] {
    const adopted = this.spool.adoptReplays();
    for (const { batchIds } of adopted.segments) for (const id of batchIds) this.recent.add(id);
    const segments = adopted.segments.map((a) => a.segment);
    this.flusher.adopt(segments);
    this.opts.onReplay?.({ segments, quarantined: adopted.quarantined, errors: adopted.errors });
    return segments;
  }

  /** Segments in the quarantine now. */
  quarantinedSegments(): number {
    return countQuarantined(this.spool.dir);
  }

  isDuplicate(batchId: string): boolean {
    return this.recent.has(batchId);
  }

  /**
   * Resolves when the batch is durable (or was already): the caller answers 202. Rejects with
   * SpoolFullError at the cap, or with the write error; then nothing of it is kept.
   */
  async submit(batch: HandshakeBatch, origin: BatchOrigin): Promise<SubmitResult> {
    const id = batch.batchId.toLowerCase();
    if (this.recent.has(id)) {
      const first = this.inflight.get(id);
      if (first) await first;
      return { status: 'duplicate' };
    }
    const ctx: RowContext = { batch, ...origin };
    // A batch id must not tie a client's days together: tokens rotate at UTC midnight, so a batch whose
    // records span two UTC days and hold two tokens (an older extension's queue, sent after midnight) is
    // split — the rows of its first token keep its id (the spool and the duplicate check know the batch
    // by it), every other token's rows get a fresh random id. Tokens of one day are one day's: linkable
    // within it, as the promise allows (the extension sends one token per batch anyway).
    const first = batch.records[0]?.clientToken;
    const day0 = Math.floor((batch.records[0]?.ts ?? 0) / DAY_MS);
    const split = batch.records.some((r) => Math.floor(r.ts / DAY_MS) !== day0);
    const others = new Map<string, RowContext>();
    const contextOf = (token: string): RowContext => {
      if (!split || token === first) return ctx;
      let c = others.get(token);
      if (!c) others.set(token, (c = { ...ctx, batch: { ...batch, batchId: randomUUID() } }));
      return c;
    };
    let rows = '';
    for (const r of batch.records) rows += encodeRecordTsv(r, contextOf(r.clientToken));
    const rowCount = batch.records.length;
    const frame = Spool.frame(id, rows, rowCount);
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
    clearInterval(this.replayTimer);
    await this.spool.close();
    await this.flusher.drain(deadlineMs);
  }
}

export { SpoolFullError };
