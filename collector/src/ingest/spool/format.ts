/**
 * The spool's file format, and how a segment's rows are inserted: the one module that knows both.
 *
 * A segment file is a sequence of frames: u32 payload length, u32 CRC-32 of the payload, u32 row count,
 * then the payload. A torn tail (a crash mid-write: that frame was never acknowledged) fails its length
 * or checksum and ends the segment there.
 *
 * Version 2 (this release): the first frame is the segment header (row count 0), payload
 * `#tlsrum-spool\tsegment-v2\n` + JSON `{"format":"TabSeparated","columns":[…]}`: the columns every
 * row of the segment carries, in order. Each later frame is one batch: payload `batchId\n` + its rows.
 * Replay inserts with exactly the header's columns, so after an upgrade that adds columns the store
 * fills them with their defaults, and a release that removes one still reads older segments by name.
 * (A release before version 2 reading this header stops with "unknown format": it never guesses.)
 *
 * Segments without a header were written by earlier releases; each frame's first line is
 * `batchId\tTabSeparated` (rows in the frozen `V1_COLUMNS` order) or just `batchId` (JSONEachRow rows,
 * matched to columns by key).
 */
import { crc32 } from 'node:zlib';

const FRAME_HEADER = 12;
const HEADER_TAG = '#tlsrum-spool\tsegment-v2';

export type RowFormat = 'TabSeparated' | 'JSONEachRow';
const FORMATS: ReadonlySet<string> = new Set<RowFormat>(['TabSeparated', 'JSONEachRow']);

/** How a segment's rows are written. `columns` null: JSONEachRow rows, each value under its column name. */
export interface SegmentLayout {
  format: RowFormat;
  columns: readonly string[] | null;
}

/**
 * The columns of TabSeparated entries written before segments had a header (the release that introduced
 * TabSeparated spooling). Frozen: those files exist on disk as they are, whatever the registry says now.
 */
export const V1_COLUMNS: readonly string[] = Object.freeze(
  (
    'ts receivedAt batchId site country entryType protocol transport tlsVersion tlsVersionSource resumed resumedSource ' +
    'handshakeClass dns tcp tls connect ttfb cipher keyExchangeGroup signatureScheme certChainLength browser browserMajor ' +
    'os effectiveType rttHint source agentName agentVersion clientToken'
  ).split(' '),
);

const LEGACY_TSV: SegmentLayout = { format: 'TabSeparated', columns: V1_COLUMNS };
const LEGACY_JSON: SegmentLayout = { format: 'JSONEachRow', columns: null };

/** A segment this release cannot read (its checksums hold, so a collector wrote it): never guessed, quarantined. */
export class SpoolFormatError extends Error {
  override name = 'SpoolFormatError';
}

export interface SegmentEntry {
  batchId: string;
  rows: string;
  rowCount: number;
}

export interface SegmentContent extends SegmentLayout {
  batchIds: string[];
  /** The rows of every entry, ready for one insert. */
  rows: string;
  rowCount: number;
  /** The same rows per batch (to leave out the batches the store already holds). */
  entries: SegmentEntry[];
}

function frame(payload: Buffer, rowCount: number): Buffer {
  const out = Buffer.allocUnsafe(FRAME_HEADER + payload.length);
  out.writeUInt32LE(payload.length, 0);
  out.writeUInt32LE(crc32(payload), 4);
  out.writeUInt32LE(rowCount, 8);
  payload.copy(out, FRAME_HEADER);
  return out;
}

/** The first frame of every segment this release writes. */
export function headerFrame(layout: SegmentLayout): Buffer {
  if (layout.format === 'TabSeparated' && !layout.columns?.length)
    throw new Error('TabSeparated rows need their columns');
  return frame(
    Buffer.from(`${HEADER_TAG}\n${JSON.stringify({ format: layout.format, columns: layout.columns })}`, 'utf8'),
    0,
  );
}

/** One batch's rows (in the segment's layout) as a frame. */
export function entryFrame(batchId: string, rows: string, rowCount: number): Buffer {
  return frame(Buffer.from(`${batchId}\n${rows}`, 'utf8'), rowCount);
}

function parseHeader(json: string): SegmentLayout {
  let h: { format?: unknown; columns?: unknown };
  try {
    h = JSON.parse(json) as typeof h;
  } catch {
    throw new SpoolFormatError('spool segment header is not JSON');
  }
  const columns = h.columns;
  const valid =
    typeof h.format === 'string' &&
    FORMATS.has(h.format) &&
    (columns === null ||
      (Array.isArray(columns) &&
        columns.length > 0 &&
        columns.every((c) => typeof c === 'string' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(c)))) &&
    (h.format !== 'TabSeparated' || columns !== null);
  if (!valid) throw new SpoolFormatError(`spool segment header is not understood: ${json.slice(0, 200)}`);
  return { format: h.format as RowFormat, columns: columns as string[] | null };
}

/**
 * Reads a segment: its layout, its entries, and how many bytes of it are whole frames (the rest is a
 * torn tail). Throws SpoolFormatError for a segment written in a layout this release does not know.
 */
export function parseSegment(buf: Buffer): { content: SegmentContent; validBytes: number; entryBytes: number } {
  const entries: SegmentEntry[] = [];
  let layout: SegmentLayout | null = null;
  let headed = false;
  let off = 0;
  let entryBytes = 0;
  while (off + FRAME_HEADER <= buf.length) {
    const len = buf.readUInt32LE(off);
    const crc = buf.readUInt32LE(off + 4);
    const rows = buf.readUInt32LE(off + 8);
    const end = off + FRAME_HEADER + len;
    if (end > buf.length) break;
    const payload = buf.subarray(off + FRAME_HEADER, end);
    if (crc32(payload) !== crc) break;
    const text = payload.toString('utf8');
    const nl = text.indexOf('\n');
    if (nl < 0) break;
    const first = text.slice(0, nl);
    if (off === 0 && first === HEADER_TAG) {
      layout = parseHeader(text.slice(nl + 1));
      headed = true;
    } else if (headed) {
      if (first.includes('\t'))
        throw new SpoolFormatError(`spool entry "${first.slice(0, 80)}" carries a format in a segment with a header`);
      entries.push({ batchId: first, rows: text.slice(nl + 1), rowCount: rows });
      entryBytes += end - off;
    } else {
      // No header: an entry of an earlier release, its format after the batch id (JSONEachRow when absent).
      const [batchId, entryFormat = 'JSONEachRow'] = first.split('\t');
      if (!FORMATS.has(entryFormat))
        throw new SpoolFormatError(`spool entry ${batchId} has rows in an unknown format "${entryFormat}"`);
      const entryLayout = entryFormat === 'TabSeparated' ? LEGACY_TSV : LEGACY_JSON;
      // One process writes a segment, in one format; a mixed segment cannot be one insert.
      if (layout !== null && layout !== entryLayout)
        throw new SpoolFormatError(`spool segment mixes ${layout.format} and ${entryFormat} entries`);
      layout = entryLayout;
      entries.push({ batchId: batchId!, rows: text.slice(nl + 1), rowCount: rows });
      entryBytes += end - off;
    }
    off = end;
  }
  return { content: contentOf(entries, layout ?? LEGACY_TSV), validBytes: off, entryBytes };
}

export function contentOf(entries: SegmentEntry[], layout: SegmentLayout): SegmentContent {
  let rowCount = 0;
  for (const e of entries) rowCount += e.rowCount;
  return {
    format: layout.format,
    columns: layout.columns,
    batchIds: entries.map((e) => e.batchId),
    rows: entries.map((e) => e.rows).join(''),
    rowCount,
    entries,
  };
}

/** The insert for a segment's rows: exactly its own columns, so the store fills any others with their defaults. */
export function insertStatement(layout: SegmentLayout): string {
  const columns = layout.columns ? ` (${layout.columns.join(', ')})` : '';
  return `INSERT INTO handshakes${columns} FORMAT ${layout.format}`;
}
