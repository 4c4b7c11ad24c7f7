/**
 * Segments the store refused for their content, kept out of the way of later ones and never deleted
 * by the collector: `SPOOL_DIR/quarantine/<id>.seg`, beside it `<id>.json` (the error, when, tries).
 *
 * The operator looks at them and decides (`pnpm collector spool list|replay|drop`). Replay moves a
 * segment into `SPOOL_DIR/replay/`, which the collector owning the spool takes in at start-up and every
 * few seconds while it runs (renaming it into the spool under its next sequence number): the CLI never
 * writes the spool folder itself, so it cannot collide with the running collector's own segments. Drop
 * deletes the segment and appends a line (what, when, the batch ids) to `quarantine/dropped.log`.
 *
 * Every move is a rename within the spool's file system followed by an fsync of both folders.
 */
import {
  appendFileSync,
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { open } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { parseSegment, SpoolFormatError, type RowFormat } from './format';

export const QUARANTINE_DIR = 'quarantine';
export const REPLAY_DIR = 'replay';
const DROP_LOG = 'dropped.log';
/** How often a running collector looks for segments put back for replay. */
export const REPLAY_POLL_MS = 5_000;

export interface QuarantineReason {
  /** The store's (or the format's) first error for this segment. */
  error: string;
  firstErrorAt: number;
  /** Inserts tried (0: not tried, the segment could not be read). */
  tries: number;
  lastError?: string;
}

export interface QuarantinedSegment extends Partial<QuarantineReason> {
  id: string;
  /** Rows and columns as the segment says; null when this release cannot read it. */
  rows: number | null;
  batches: number | null;
  bytes: number;
  format: RowFormat | null;
  columns: readonly string[] | null;
  quarantinedAt: number | null;
  /** Why the segment cannot be read, when it cannot. */
  unreadable?: string;
}

const quarantineDir = (spoolDir: string) => join(spoolDir, QUARANTINE_DIR);
const replayDir = (spoolDir: string) => join(spoolDir, REPLAY_DIR);
const segFiles = (dir: string) =>
  existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => f.endsWith('.seg'))
        .sort()
    : [];

/** Moves a segment file into the quarantine with its reason; returns its id there. */
export function moveToQuarantine(spoolDir: string, path: string, reason: QuarantineReason): string {
  const dir = quarantineDir(spoolDir);
  mkdirSync(dir, { recursive: true });
  let id = basename(path, '.seg');
  if (existsSync(join(dir, `${id}.seg`))) id = `${id}-${Date.now()}`;
  const meta = join(dir, `${id}.json`);
  writeFileSync(`${meta}.tmp`, JSON.stringify({ ...reason, quarantinedAt: Date.now() }, null, 2) + '\n');
  renameSync(`${meta}.tmp`, meta);
  renameSync(path, join(dir, `${id}.seg`));
  fsyncDirSync(dir);
  fsyncDirSync(spoolDir);
  return id;
}

/** Segments in the quarantine now (the `tlsrum_spool_quarantined_segments` gauge). */
export function countQuarantined(spoolDir: string): number {
  return segFiles(quarantineDir(spoolDir)).length;
}

/** The highest sequence number a quarantined or put-back segment was written under (0 if none). */
export function highestQuarantinedSeq(spoolDir: string): number {
  let max = 0;
  for (const f of [...segFiles(quarantineDir(spoolDir)), ...segFiles(replayDir(spoolDir))]) {
    const n = Number(/^(\d+)/.exec(f)?.[1] ?? 0);
    if (n > max) max = n;
  }
  return max;
}

/** Segment files an operator put back for replay, oldest id first. */
export function takeReplays(spoolDir: string): string[] {
  const dir = replayDir(spoolDir);
  return segFiles(dir).map((f) => join(dir, f));
}

export function listQuarantined(spoolDir: string): QuarantinedSegment[] {
  const dir = quarantineDir(spoolDir);
  return segFiles(dir).map((f) => {
    const id = basename(f, '.seg');
    const path = join(dir, f);
    let reason: Partial<QuarantineReason> & { quarantinedAt?: number } = {};
    try {
      reason = JSON.parse(readFileSync(join(dir, `${id}.json`), 'utf8')) as typeof reason;
    } catch {
      // No readable reason file (a crash between the two renames): the segment itself still lists.
    }
    const base = { id, ...reason, bytes: statSync(path).size, quarantinedAt: reason.quarantinedAt ?? null };
    try {
      const { content } = parseSegment(readFileSync(path));
      return {
        ...base,
        rows: content.rowCount,
        batches: content.batchIds.length,
        format: content.format,
        columns: content.columns,
      };
    } catch (err) {
      if (!(err instanceof SpoolFormatError)) throw err;
      return { ...base, rows: null, batches: null, format: null, columns: null, unreadable: err.message };
    }
  });
}

function quarantinedPath(spoolDir: string, id: string): string {
  if (!/^[0-9A-Za-z_-]+$/.test(id)) throw new Error(`"${id}" is not a segment id (see \`spool list\`)`);
  const path = join(quarantineDir(spoolDir), `${id}.seg`);
  if (!existsSync(path)) throw new Error(`no quarantined segment "${id}" in ${quarantineDir(spoolDir)}`);
  return path;
}

/** Puts a quarantined segment back: the collector owning the spool replays it (start-up, or within seconds). */
export function releaseForReplay(spoolDir: string, id: string): void {
  const from = quarantinedPath(spoolDir, id);
  const dir = replayDir(spoolDir);
  mkdirSync(dir, { recursive: true });
  renameSync(from, join(dir, `${id}.seg`));
  fsyncDirSync(dir);
  fsyncDirSync(quarantineDir(spoolDir));
  // The reason goes: if the segment fails again it is quarantined again, with the new error.
  rmSync(join(quarantineDir(spoolDir), `${id}.json`), { force: true });
}

/** Deletes a quarantined segment for good, after recording what it held in `quarantine/dropped.log`. */
export function dropQuarantined(spoolDir: string, id: string): QuarantinedSegment {
  const path = quarantinedPath(spoolDir, id);
  const info = listQuarantined(spoolDir).find((q) => q.id === id)!;
  let batchIds: string[] | null = null;
  try {
    batchIds = parseSegment(readFileSync(path)).content.batchIds;
  } catch {
    // Unreadable: the log says so through `unreadable`.
  }
  const dir = quarantineDir(spoolDir);
  appendFileSync(
    join(dir, DROP_LOG),
    JSON.stringify({ droppedAt: new Date().toISOString(), ...info, batchIds }) + '\n',
  );
  const fd = openSync(join(dir, DROP_LOG), 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  unlinkSync(path);
  rmSync(join(dir, `${id}.json`), { force: true });
  fsyncDirSync(dir);
  return info;
}

export async function fsyncDir(dir: string): Promise<void> {
  const fh = await open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

export function fsyncDirSync(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
