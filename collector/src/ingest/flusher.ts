/**
 * Moves sealed spool segments into the store, oldest first, one insert per segment, and deletes a
 * segment's file only after its insert succeeded. A failing store is retried with exponential backoff
 * (250 ms doubling to 8 s) while ingest keeps appending to the spool.
 *
 * Each insert carries `insert_deduplication_token` = SHA-256 of the segment's batch ids; the table keeps
 * the tokens of its last inserts (`non_replicated_deduplication_window`), so an insert that reached the
 * store but whose success we never saw (crash, timeout) is dropped by the store when it is retried.
 *
 * The token alone is not trusted for a segment whose insert may have been cut short (left by a crashed
 * run, or after a failed attempt): under load, kill -9 during an insert once left a whole segment's token
 * in the store's deduplication log without its rows, and the replay was then dropped as a repeat (about
 * 100 acknowledged batches lost; fault test (a)). Such a "suspect" segment is first checked against the
 * store: batches already there are skipped, the others are inserted under a fresh token.
 *
 * A segment the store refuses for its content (store-errors.ts) is tried `quarantineAfter` times, then
 * moved to the quarantine (quarantine.ts) and the next segment goes on: one bad segment must not hold
 * every later one back until the spool fills and ingest answers 503. Other errors are retried forever.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { QuarantineReason } from './spool/quarantine';
import { Spool, type SealedSegment } from './spool/spool';
import { contentOf, type SegmentContent } from './spool/format';
import { errorText } from './store-errors';

export interface FlusherOptions {
  insert: (content: SegmentContent, dedupToken: string) => Promise<void>;
  /** Migrations done: nothing is inserted before. */
  whenReady: Promise<void>;
  /**
   * After the store took a segment and before its file is deleted (the batch journal): a crash between
   * the two then leaves the segment to be replayed and checked, never neither the segment nor the ids.
   */
  onStored?: (content: SegmentContent) => Promise<void>;
  onFlushed?: (segment: SealedSegment, content: SegmentContent, ms: number) => void | Promise<void>;
  onError?: (err: unknown, attempt: number, retryInMs: number) => void;
  /** Which of these batch ids the store already holds (for suspect segments; see the top comment). */
  storedBatchIds?: (batchIds: string[]) => Promise<Set<string>>;
  /** Whether the store refused the segment's content (default: never, so every error is retried forever). */
  isContentError?: (err: unknown) => boolean;
  /** Inserts of a segment refused for its content before it is quarantined. */
  quarantineAfter?: number;
  onQuarantined?: (segment: SealedSegment, id: string, reason: QuarantineReason) => void;
}

export const MIN_BACKOFF_MS = 250;
// Capped low: one failed insert every 8 s costs nothing, and the spool drains soon after the store is back.
export const MAX_BACKOFF_MS = 8_000;

export class Flusher {
  private running: Promise<void> | null = null;
  private failures = 0;
  private retryAt = 0;
  private retryTimer: NodeJS.Timeout | null = null;
  private ready = false;
  private stopped = false;
  /** Segments whose earlier insert may have been cut short: replayed after a crash, or failed here. */
  private readonly suspect = new Set<number>();
  /** Content errors per segment, until it is stored or quarantined. */
  private readonly refused = new Map<number, QuarantineReason>();

  constructor(
    private readonly spool: Spool,
    private readonly opts: FlusherOptions,
  ) {
    // Everything sealed before the first flush was left by the previous run.
    for (const seg of spool.sealedSegments()) this.suspect.add(seg.seq);
    spool.onSealed = () => this.wake();
    void opts.whenReady.then(() => {
      this.ready = true;
      this.wake();
    });
  }

  /** Consecutive failed inserts (0 when the store is healthy). */
  get consecutiveFailures(): number {
    return this.failures;
  }

  /** Seconds a client should wait before retrying while the spool is full. */
  retryAfterSeconds(): number {
    return Math.min(60, Math.max(1, Math.ceil((this.retryAt - Date.now()) / 1000)));
  }

  private backoffMs(): number {
    return Math.min(MAX_BACKOFF_MS, MIN_BACKOFF_MS * 2 ** Math.min(this.failures - 1, 10));
  }

  /** Segments put back into the spool (replay): suspect, as their batches may have been stored since. */
  adopt(segments: readonly SealedSegment[]): void {
    for (const seg of segments) this.suspect.add(seg.seq);
    if (segments.length) this.wake();
  }

  private wake(): void {
    if (!this.ready || this.stopped || this.retryTimer) return;
    const wait = this.retryAt - Date.now();
    // Backing off: wait for the retry time, never just return. Node schedules timers on the event
    // loop's cached clock, which lags Date.now() under load, so the retry timer can fire a few ms early;
    // returning then left a full spool (which seals nothing new to wake us) stuck until restart
    // (fault test (b) under load).
    if (wait > 0) return this.retryIn(wait);
    void this.run();
  }

  private retryIn(ms: number): void {
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.wake();
    }, ms);
  }

  /** Inserts sealed segments until none is left or one fails. One run at a time. */
  private run(): Promise<void> {
    if (this.running) return this.running;
    this.running = this.drainOnce().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async drainOnce(): Promise<void> {
    for (let seg = this.spool.peek(); seg; seg = this.spool.peek()) {
      const started = performance.now();
      let content: SegmentContent;
      try {
        content = await Spool.read(seg);
        if (this.suspect.has(seg.seq) && this.opts.storedBatchIds) {
          const missing = withoutStored(content, await this.opts.storedBatchIds(content.batchIds));
          // A fresh token: the segment's own may sit in the deduplication log without its rows.
          if (missing.rowCount > 0) await this.opts.insert(missing, `verified-${randomUUID()}`);
        } else {
          await this.opts.insert(content, dedupToken(content.batchIds));
        }
        try {
          await this.opts.onStored?.(content);
        } catch {
          // Bookkeeping only: the rows are stored, and the segment is still deleted below.
        }
        // If the delete fails the segment is inserted again later: the store drops the repeat.
        await this.spool.remove(seg);
        this.suspect.delete(seg.seq);
        this.refused.delete(seg.seq);
      } catch (err) {
        this.suspect.add(seg.seq);
        if (this.quarantineIfRefused(seg, err)) {
          this.failures = 0;
          this.retryAt = 0;
          continue;
        }
        this.failures += 1;
        const wait = this.backoffMs();
        this.retryAt = Date.now() + wait;
        this.opts.onError?.(err, this.failures, wait);
        if (!this.stopped && !this.retryTimer) this.retryIn(wait);
        return;
      }
      this.failures = 0;
      this.retryAt = 0;
      try {
        await this.opts.onFlushed?.(seg, content, performance.now() - started);
      } catch {
        // Bookkeeping only (journal, metrics): the rows are stored.
      }
    }
  }

  /** Counts a content error against the segment; true once it has been moved to the quarantine. */
  private quarantineIfRefused(seg: SealedSegment, err: unknown): boolean {
    if (!this.opts.isContentError?.(err)) return false;
    const message = errorText(err);
    const reason = this.refused.get(seg.seq) ?? { error: message, firstErrorAt: Date.now(), tries: 0 };
    reason.tries += 1;
    reason.lastError = message;
    this.refused.set(seg.seq, reason);
    if (reason.tries < (this.opts.quarantineAfter ?? Infinity)) return false;
    let id: string;
    try {
      id = this.spool.quarantine(seg, reason);
    } catch (moveErr) {
      // Could not move it (the spool folder read-only?): it stays first in line and is retried with backoff.
      this.opts.onError?.(moveErr, this.failures, 0);
      return false;
    }
    this.refused.delete(seg.seq);
    this.suspect.delete(seg.seq);
    this.opts.onQuarantined?.(seg, id, reason);
    return true;
  }

  /** Seals the active segment and tries to insert everything now, ignoring any backoff wait. */
  async flushNow(): Promise<void> {
    await this.opts.whenReady;
    await this.spool.requestSeal();
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.retryAt = 0;
    await this.running;
    await this.run();
  }

  /**
   * Graceful shutdown: after the spool is closed, keeps inserting (with backoff) until the spool is
   * empty or the deadline passes. What is left stays on disk and is replayed at the next start.
   */
  async drain(deadlineMs: number): Promise<void> {
    const until = Date.now() + deadlineMs;
    // A store that never became ready will not become ready now (its retries stop with the app):
    // the spool stays on disk for the next start.
    if (!this.ready) return this.stop();
    while (this.spool.peek() && Date.now() < until) {
      if (this.retryTimer) clearTimeout(this.retryTimer);
      this.retryTimer = null;
      const wait = Math.max(0, this.retryAt - Date.now());
      if (wait > 0) await sleep(Math.min(wait, until - Date.now()));
      if (Date.now() >= until) break;
      await this.running;
      await this.run();
    }
    this.stop();
  }

  stop(): void {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
  }
}

/** The part of a segment whose batches the store does not hold yet. */
export function withoutStored(content: SegmentContent, stored: Set<string>): SegmentContent {
  if (stored.size === 0) return content;
  return contentOf(
    content.entries.filter((e) => !stored.has(e.batchId.toLowerCase())),
    content,
  );
}

export function dedupToken(batchIds: string[]): string {
  return createHash('sha256').update(batchIds.join(',')).digest('hex');
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
