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
 * Frame of an entry: u32 payload length, u32 CRC-32 of the payload, u32 row count, then the payload:
 * the batch id, a tab and the rows' format, "\n", then the rows in that format. Entries written before
 * the format was recorded have no tab: their rows are JSONEachRow, and they are replayed as such. A torn
 * tail (a crash mid-write: that entry was never acknowledged) is cut off at start-up.
 */
import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, statSync, unlinkSync, ftruncateSync } from 'node:fs';
import { open, readFile, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';

const HEADER = 12;
const SEGMENT_RE = /^(\d{12})\.seg$/;

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
}

export interface SealedSegment {
  seq: number;
  path: string;
  bytes: number;
  rows: number;
  /** When its first entry was appended (for the spool-age gauge); file mtime after a restart. */
  firstAt: number;
}

/** How an entry's rows are written: TabSeparated since the insert-format change, JSONEachRow before. */
export type RowFormat = 'TabSeparated' | 'JSONEachRow';
const FORMATS: ReadonlySet<string> = new Set<RowFormat>(['TabSeparated', 'JSONEachRow']);

export interface SegmentEntry {
  batchId: string;
  rows: string;
  rowCount: number;
}

export interface SegmentContent {
  batchIds: string[];
  /** The rows of every entry in `format`, ready for one insert. */
  rows: string;
  rowCount: number;
  format: RowFormat;
  /** The same rows per batch (to leave out the batches the store already holds). */
  entries: SegmentEntry[];
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
  bytes: number;
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

  /**
   * Opens the spool folder. Segments left by a previous run (crash or a shutdown that could not
   * drain) are sealed as they are, their torn tail cut off, and queued for the flusher first.
   * Returns the batch ids they hold so the duplicate check covers them.
   */
  constructor(private readonly opts: SpoolOptions) {
    mkdirSync(opts.dir, { recursive: true });
  }

  recover(): { segments: number; rows: number; batchIds: string[]; tornBytes: number } {
    const files = readdirSync(this.opts.dir)
      .map((f) => SEGMENT_RE.exec(f))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => ({ seq: Number(m[1]), path: join(this.opts.dir, m[0]) }))
      .sort((a, b) => a.seq - b.seq);
    const batchIds: string[] = [];
    let rows = 0;
    let tornBytes = 0;
    for (const f of files) {
      const buf = readFileSync(f.path);
      const parsed = parseSegment(buf);
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
      this.pushSealed({ seq: f.seq, path: f.path, bytes: parsed.validBytes, rows: parsed.content.rowCount, firstAt: statSync(f.path).mtimeMs });
      this.nextSeq = f.seq + 1;
    }
    return { segments: this.sealed.length, rows, batchIds, tornBytes };
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
    return first === undefined || (this.sealed.length === 0 && (this.active?.rows ?? 0) === 0) ? 0 : Math.max(0, now - first);
  }

  get sealedCount(): number {
    return this.sealed.length;
  }

  accepts(rows: number, bytes: number): boolean {
    return !this.closed && this.bytes + bytes <= this.opts.maxBytes && this.rows + rows <= this.opts.maxRows;
  }

  /** Encodes one batch's rows as an entry; the caller passes it to `append`. */
  static frame(batchId: string, rows: string, rowCount: number, format: RowFormat): Buffer {
    const payload = Buffer.from(`${batchId}\t${format}\n${rows}`, 'utf8');
    const frame = Buffer.allocUnsafe(HEADER + payload.length);
    frame.writeUInt32LE(payload.length, 0);
    frame.writeUInt32LE(crc32(payload), 4);
    frame.writeUInt32LE(rowCount, 8);
    payload.copy(frame, HEADER);
    return frame;
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
      while (i < batch.length && (seg.rows + rows === 0 || seg.rows + rows + batch[i]!.rows <= this.opts.segmentMaxRows)) {
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
    const path = join(this.opts.dir, `${String(seq).padStart(12, '0')}.seg`);
    const fh = await open(path, 'wx');
    // The new file's directory entry must survive a crash too, or its acknowledged entries vanish.
    await fsyncDir(this.opts.dir);
    this.active = { seq, path, fh, bytes: 0, rows: 0, firstAt: Date.now() };
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
    const sealed: SealedSegment = { seq: seg.seq, path: seg.path, bytes: seg.bytes, rows: seg.rows, firstAt: seg.firstAt };
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

export function parseSegment(buf: Buffer): { content: SegmentContent; validBytes: number } {
  const entries: SegmentEntry[] = [];
  let format: RowFormat | null = null;
  let off = 0;
  while (off + HEADER <= buf.length) {
    const len = buf.readUInt32LE(off);
    const crc = buf.readUInt32LE(off + 4);
    const rows = buf.readUInt32LE(off + 8);
    const end = off + HEADER + len;
    if (end > buf.length) break;
    const payload = buf.subarray(off + HEADER, end);
    if (crc32(payload) !== crc) break;
    const text = payload.toString('utf8');
    const nl = text.indexOf('\n');
    if (nl < 0) break;
    const [batchId, entryFormat = 'JSONEachRow'] = text.slice(0, nl).split('\t');
    // The checksum matched, so this is what a collector wrote: refuse to guess rather than drop it.
    if (!FORMATS.has(entryFormat)) throw new Error(`spool entry ${batchId} has rows in an unknown format "${entryFormat}"`);
    // One process writes a segment, in one format; a mixed segment cannot be one insert.
    if (format !== null && entryFormat !== format) throw new Error(`spool segment mixes ${format} and ${entryFormat} entries`);
    format = entryFormat as RowFormat;
    entries.push({ batchId: batchId!, rows: text.slice(nl + 1), rowCount: rows });
    off = end;
  }
  return { content: contentOf(entries, format ?? 'TabSeparated'), validBytes: off };
}

export function contentOf(entries: SegmentEntry[], format: RowFormat): SegmentContent {
  let rowCount = 0;
  for (const e of entries) rowCount += e.rowCount;
  return { batchIds: entries.map((e) => e.batchId), rows: entries.map((e) => e.rows).join(''), rowCount, format, entries };
}

async function fsyncDir(dir: string): Promise<void> {
  const fh = await open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}
