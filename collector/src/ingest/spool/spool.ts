/**
 * The write-ahead spool: accepted batches are appended to segment files and fsynced before the
 * collector answers 202, so an acknowledged record survives a crash of the process or the machine.
 *
 * Group commit: appends that arrive while a write is in progress wait for the next round, and one
 * round is one `writev` + one `fdatasync` for all of them, however many requests they came from.
 *
 * Segments: the active segment takes appends until it holds `segmentMaxRows` rows or its first entry
 * is `segmentMaxAgeMs` old; then it is sealed (immutable) and becomes one insert for the flusher.
 * Because a sealed segment never changes, the insert's deduplication token (derived from its batch
 * ids) is the same on every retry and after a restart, and the store drops the repeat.
 *
 * The file format (a header naming the segment's columns, then one frame per batch) is spool-format.ts;
 * quarantined segments and the operator's replay folder are quarantine.ts.
 */
import {
  closeSync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
} from 'node:fs';
import { open, readFile, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import {
  entryFrame,
  headerFrame,
  parseSegment,
  SpoolFormatError,
  type SegmentContent,
  type SegmentLayout,
} from './format';
import {
  fsyncDir,
  fsyncDirSync,
  highestQuarantinedSeq,
  moveToQuarantine,
  takeReplays,
  type QuarantineReason,
} from './quarantine';

const SEGMENT_RE = /^(\d{12})\.seg$/;
const segmentName = (seq: number) => `${String(seq).padStart(12, '0')}.seg`;

export interface SpoolOptions {
  dir: string;
  /** Refuse appends (503) once the segments on disk hold this many bytes. */
  maxBytes: number;
  /** Refuse appends once this many rows wait for the store. */
  maxRows: number;
  /** Seal the active segment at this many rows (one insert ≤ this many rows). */
  segmentMaxRows: number;
  /** Seal the active segment when its first entry is this old. */
  segmentMaxAgeMs: number;
  /** The layout this process writes (recorded in each segment's header). */
  layout: SegmentLayout;
}

export interface SealedSegment {
  seq: number;
  path: string;
  /** Bytes of its entries (the header is not counted against the cap). */
  bytes: number;
  rows: number;
  /** When its first entry was appended (for the spool-age gauge); file mtime after a restart. */
  firstAt: number;
}

interface Pending {
  frame: Buffer;
  rows: number;
  resolve: () => void;
  reject: (err: unknown) => void;
}

interface Active {
  seq: number;
  path: string;
  fh: FileHandle;
  /** End of the file: the header and every entry written. */
  bytes: number;
  headerBytes: number;
  rows: number;
  firstAt: number;
}

export class SpoolFullError extends Error {
  override name = 'SpoolFullError';
}

export class Spool {
  private readonly sealed: SealedSegment[] = [];
  private active: Active | null = null;
  private pending: Pending[] = [];
  private pendingBytes = 0;
  private pendingRows = 0;
  private writing: Promise<void> | null = null;
  private sealTimer: NodeJS.Timeout | null = null;
  private sealRequested = false;
  private nextSeq = 1;
  private closed = false;
  private diskBytes = 0;
  private waitingRows = 0;
  /** Group-commit rounds written (one fdatasync each), for the metrics and the tests. */
  fsyncs = 0;
  /** Sealed segments waiting for the store, oldest first. */
  sealedSegments(): readonly SealedSegment[] {
    return this.sealed;
  }

  /** Called when a segment is sealed, so the flusher can start at once. */
  onSealed: (segment: SealedSegment) => void = () => {};
  private readonly header: Buffer;

  /**
   * Opens the spool folder. Segments left by a previous run (crash or a shutdown that could not
   * drain) are sealed as they are, their torn tail cut off, and queued for the flusher first.
   * Returns the batch ids they hold so the duplicate check covers them.
   */
  constructor(private readonly opts: SpoolOptions) {
    mkdirSync(opts.dir, { recursive: true });
    this.header = headerFrame(opts.layout);
  }

  get dir(): string {
    return this.opts.dir;
  }

  /**
   * Segments this release cannot read are moved to the quarantine (with the reason), not replayed and
   * not deleted; `quarantined` lists them. Segments an operator put back for replay are taken in too.
   */
  recover(): {
    segments: number;
    rows: number;
    batchIds: string[];
    tornBytes: number;
    quarantined: string[];
    replayErrors: string[];
  } {
    const files = readdirSync(this.opts.dir)
      .map((f) => SEGMENT_RE.exec(f))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => ({ seq: Number(m[1]), path: join(this.opts.dir, m[0]) }))
      .sort((a, b) => a.seq - b.seq);
    // Sequence numbers stay unique across the spool and its quarantine (a segment put back keeps no number).
    this.nextSeq = Math.max(this.nextSeq, highestQuarantinedSeq(this.opts.dir) + 1);
    const batchIds: string[] = [];
    const quarantined: string[] = [];
    let rows = 0;
    let tornBytes = 0;
    for (const f of files) {
      this.nextSeq = Math.max(this.nextSeq, f.seq + 1);
      const buf = readFileSync(f.path);
      let parsed: ReturnType<typeof parseSegment>;
      try {
        parsed = parseSegment(buf);
      } catch (err) {
        if (!(err instanceof SpoolFormatError)) throw err;
        quarantined.push(moveToQuarantine(this.opts.dir, f.path, unreadable(err)));
        continue;
      }
      if (parsed.validBytes < buf.length) {
        tornBytes += buf.length - parsed.validBytes;
        const fd = openSync(f.path, 'r+');
        try {
          ftruncateSync(fd, parsed.validBytes);
          fsyncSync(fd);
        } finally {
          closeSync(fd);
        }
      }
      if (parsed.content.rowCount === 0) {
        unlinkSync(f.path);
        continue;
      }
      batchIds.push(...parsed.content.batchIds);
      rows += parsed.content.rowCount;
      this.pushSealed({
        seq: f.seq,
        path: f.path,
        bytes: parsed.entryBytes,
        rows: parsed.content.rowCount,
        firstAt: statSync(f.path).mtimeMs,
      });
    }
    const replayed = this.adoptReplays();
    for (const r of replayed.segments) {
      batchIds.push(...r.batchIds);
      rows += r.segment.rows;
    }
    quarantined.push(...replayed.quarantined);
    return { segments: this.sealed.length, rows, batchIds, tornBytes, quarantined, replayErrors: replayed.errors };
  }

  /**
   * Takes in the segments an operator put back for replay (`pnpm collector spool replay`): each gets
   * the next sequence number and is queued behind the sealed ones. The caller treats them as suspect
   * (some of their batches may have reached the store since) and adds their batch ids to the duplicate check.
   */
  adoptReplays(): {
    segments: { segment: SealedSegment; batchIds: string[] }[];
    quarantined: string[];
    errors: string[];
  } {
    const segments: { segment: SealedSegment; batchIds: string[] }[] = [];
    const quarantined: string[] = [];
    // A file that cannot be taken in now (an I/O error) stays in replay/ and is tried again at the next poll.
    const errors: string[] = [];
    for (const file of takeReplays(this.opts.dir)) {
      try {
        let parsed: ReturnType<typeof parseSegment>;
        try {
          parsed = parseSegment(readFileSync(file));
        } catch (err) {
          if (!(err instanceof SpoolFormatError)) throw err;
          quarantined.push(moveToQuarantine(this.opts.dir, file, unreadable(err)));
          continue;
        }
        if (parsed.content.rowCount === 0) {
          quarantined.push(
            moveToQuarantine(this.opts.dir, file, unreadable(new SpoolFormatError('no whole entry in the segment'))),
          );
          continue;
        }
        const seq = this.nextSeq++;
        const path = join(this.opts.dir, segmentName(seq));
        renameSync(file, path);
        fsyncDirSync(this.opts.dir);
        const segment: SealedSegment = {
          seq,
          path,
          bytes: parsed.entryBytes,
          rows: parsed.content.rowCount,
          firstAt: Date.now(),
        };
        this.pushSealed(segment);
        segments.push({ segment, batchIds: parsed.content.batchIds });
      } catch (err) {
        errors.push(`${file}: ${(err as Error).message}`);
      }
    }
    return { segments, quarantined, errors };
  }

  /** Bytes of every segment on disk plus appends waiting for their round. */
  get bytes(): number {
    return this.diskBytes + this.pendingBytes;
  }

  /** Rows acknowledged or about to be, not yet in the store. */
  get rows(): number {
    return this.waitingRows + this.pendingRows;
  }

  /** Age in ms of the oldest row not yet in the store (0 when empty). */
  oldestAgeMs(now = Date.now()): number {
    const first = this.sealed[0]?.firstAt ?? this.active?.firstAt;
    return first === undefined || (this.sealed.length === 0 && (this.active?.rows ?? 0) === 0)
      ? 0
      : Math.max(0, now - first);
  }

  get sealedCount(): number {
    return this.sealed.length;
  }

  accepts(rows: number, bytes: number): boolean {
    return !this.closed && this.bytes + bytes <= this.opts.maxBytes && this.rows + rows <= this.opts.maxRows;
  }

  /** Encodes one batch's rows (in the spool's layout) as an entry; the caller passes it to `append`. */
  static frame(batchId: string, rows: string, rowCount: number): Buffer {
    return entryFrame(batchId, rows, rowCount);
  }

  /** Resolves once the entry is on disk (fdatasync done); rejects if it could not be written. */
  append(frame: Buffer, rows: number): Promise<void> {
    if (this.closed) return Promise.reject(new Error('spool is closed'));
    if (!this.accepts(rows, frame.length)) return Promise.reject(new SpoolFullError('spool is full'));
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ frame, rows, resolve, reject });
      this.pendingBytes += frame.length;
      this.pendingRows += rows;
      this.kick();
    });
  }

  private kick(): void {
    if (this.writing) return;
    this.writing = this.writeRounds().finally(() => {
      this.writing = null;
      // Appends that came in while the last round finished.
      if (this.pending.length || this.sealRequested) this.kick();
    });
  }

  private async writeRounds(): Promise<void> {
    while (this.pending.length || this.sealRequested) {
      if (this.pending.length) await this.writeRound();
      if (this.sealRequested || (this.active && this.active.rows >= this.opts.segmentMaxRows)) await this.sealActive();
    }
  }

  /** One group commit: every waiting entry, written to the active segment(s), one fdatasync each. */
  private async writeRound(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    let i = 0;
    while (i < batch.length) {
      const seg = await this.ensureActive();
      const start = seg.bytes;
      const frames: Buffer[] = [];
      const group: Pending[] = [];
      let rows = 0;
      // Fill this segment up to segmentMaxRows (a first entry always goes in: it has ≤ 500 rows).
      while (
        i < batch.length &&
        (seg.rows + rows === 0 || seg.rows + rows + batch[i]!.rows <= this.opts.segmentMaxRows)
      ) {
        frames.push(batch[i]!.frame);
        rows += batch[i]!.rows;
        group.push(batch[i]!);
        i++;
      }
      if (group.length === 0) {
        // The next entry does not fit: it starts a new segment.
        await this.sealActive();
        continue;
      }
      const bytes = frames.reduce((n, f) => n + f.length, 0);
      try {
        await seg.fh.writev(frames, start);
        await seg.fh.datasync();
        this.fsyncs += 1;
      } catch (err) {
        // Not acknowledged, so it must not be stored either: cut the segment back to its last good end.
        await seg.fh.truncate(start).catch(() => {});
        for (const p of group) {
          this.pendingBytes -= p.frame.length;
          this.pendingRows -= p.rows;
          p.reject(err);
        }
        continue;
      }
      if (seg.rows === 0) seg.firstAt = Date.now();
      seg.bytes += bytes;
      seg.rows += rows;
      this.diskBytes += bytes;
      this.waitingRows += rows;
      for (const p of group) {
        this.pendingBytes -= p.frame.length;
        this.pendingRows -= p.rows;
        p.resolve();
      }
      if (seg.rows >= this.opts.segmentMaxRows) await this.sealActive();
      else this.armSealTimer();
    }
  }

  private async ensureActive(): Promise<Active> {
    if (this.active) return this.active;
    const seq = this.nextSeq++;
    const path = join(this.opts.dir, segmentName(seq));
    const fh = await open(path, 'wx');
    try {
      // Made durable by the first entry's fdatasync: a segment whose header never reached the disk has
      // no acknowledged entry either, and recovery deletes it.
      await fh.write(this.header, 0, this.header.length, 0);
      // The new file's directory entry must survive a crash too, or its acknowledged entries vanish.
      await fsyncDir(this.opts.dir);
    } catch (err) {
      await fh.close().catch(() => {});
      await unlink(path).catch(() => {});
      throw err;
    }
    this.active = {
      seq,
      path,
      fh,
      bytes: this.header.length,
      headerBytes: this.header.length,
      rows: 0,
      firstAt: Date.now(),
    };
    return this.active;
  }

  private armSealTimer(): void {
    if (this.sealTimer || !this.active || this.active.rows === 0) return;
    const wait = Math.max(0, this.active.firstAt + this.opts.segmentMaxAgeMs - Date.now());
    this.sealTimer = setTimeout(() => {
      this.sealTimer = null;
      this.requestSeal();
    }, wait);
  }

  /** Seals the active segment after the round in progress (used by the age timer, flush and close). */
  requestSeal(): Promise<void> {
    this.sealRequested = true;
    this.kick();
    return this.idle();
  }

  /** Resolves when no write round is running and nothing waits for one. */
  async idle(): Promise<void> {
    while (this.writing) await this.writing;
  }

  private async sealActive(): Promise<void> {
    this.sealRequested = false;
    if (this.sealTimer) clearTimeout(this.sealTimer);
    this.sealTimer = null;
    const seg = this.active;
    if (!seg || seg.rows === 0) return;
    this.active = null;
    await seg.fh.close();
    const sealed: SealedSegment = {
      seq: seg.seq,
      path: seg.path,
      bytes: seg.bytes - seg.headerBytes,
      rows: seg.rows,
      firstAt: seg.firstAt,
    };
    this.pushSealed(sealed, false);
    this.onSealed(sealed);
  }

  private pushSealed(s: SealedSegment, count = true): void {
    this.sealed.push(s);
    if (count) {
      this.diskBytes += s.bytes;
      this.waitingRows += s.rows;
    }
  }

  /** The oldest sealed segment, still on disk, or undefined. */
  peek(): SealedSegment | undefined {
    return this.sealed[0];
  }

  /** Throws SpoolFormatError for a segment this release cannot read. */
  static async read(segment: SealedSegment): Promise<SegmentContent> {
    return parseSegment(await readFile(segment.path)).content;
  }

  /** After the store took a segment's rows: forget it and delete its file. */
  async remove(segment: SealedSegment): Promise<void> {
    const i = this.sealed.indexOf(segment);
    if (i < 0) return;
    await unlink(segment.path).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    });
    this.forget(i, segment);
  }

  /** A segment the store refuses for its content: moved to the quarantine, out of the way of later ones. */
  quarantine(segment: SealedSegment, reason: QuarantineReason): string {
    const i = this.sealed.indexOf(segment);
    if (i < 0) throw new Error(`segment ${segment.seq} is not waiting in the spool`);
    const id = moveToQuarantine(this.opts.dir, segment.path, reason);
    this.forget(i, segment);
    return id;
  }

  private forget(i: number, segment: SealedSegment): void {
    this.sealed.splice(i, 1);
    this.diskBytes -= segment.bytes;
    this.waitingRows -= segment.rows;
  }

  /** Stops taking appends, writes what is pending and seals the active segment. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.requestSeal();
    const seg = this.active as Active | null;
    if (seg) {
      // Empty active segment: nothing to keep.
      this.active = null;
      await seg.fh.close();
      await unlink(seg.path).catch(() => {});
    }
  }
}

function unreadable(err: SpoolFormatError): QuarantineReason {
  return { error: err.message, firstErrorAt: Date.now(), tries: 0 };
}
