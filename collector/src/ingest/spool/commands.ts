/**
 * `pnpm collector spool list|replay|drop`: the operator's view of the quarantine (quarantine.ts).
 * Safe while a collector runs on the same spool: these commands only touch `quarantine/` and `replay/`,
 * never the segments the collector owns.
 */
import { join } from 'node:path';
import {
  dropQuarantined,
  listQuarantined,
  QUARANTINE_DIR,
  releaseForReplay,
  REPLAY_POLL_MS,
  type QuarantinedSegment,
} from './quarantine';

export const SPOOL_USAGE = `usage: pnpm collector spool list [--json]
       pnpm collector spool replay (ID… | --all)   put quarantined segments back: the running collector (or the next start) inserts them
       pnpm collector spool drop (ID… | --all)     delete quarantined segments for good (recorded in quarantine/dropped.log)
       options: --spool-dir DIR (default SPOOL_DIR, or DATA_DIR/spool)`;

/** A command the operator got wrong (an unknown id): its message is all they need. */
export class SpoolCommandError extends Error {
  override name = 'SpoolCommandError';
}

export interface SpoolCommand {
  action: string | undefined;
  ids: string[];
  all: boolean;
  json: boolean;
}

const when = (ms: number | null | undefined) => (ms ? new Date(ms).toISOString() : 'unknown');

function describe(q: QuarantinedSegment): string {
  const size =
    q.rows === null
      ? `unreadable (${q.unreadable}), ${q.bytes} bytes`
      : `${q.rows} rows in ${q.batches} batches, ${q.bytes} bytes`;
  const tries = q.tries ? ` after ${q.tries} ${q.tries === 1 ? 'try' : 'tries'}` : '';
  const lines = [`${q.id}  ${size}, quarantined ${when(q.quarantinedAt)}${tries}`];
  if (q.format) lines.push(`  columns (${q.format}): ${q.columns ? q.columns.join(', ') : 'by name (JSONEachRow)'}`);
  lines.push(`  first error (${when(q.firstErrorAt)}): ${q.error ?? 'not recorded'}`);
  if (q.lastError && q.lastError !== q.error) lines.push(`  last error: ${q.lastError}`);
  return lines.join('\n');
}

/** Runs one spool command; returns the exit code. */
export function runSpoolCommand(cmd: SpoolCommand, spoolDir: string, out: (s: string) => void): number {
  const quarantined = listQuarantined(spoolDir);
  if (cmd.action === 'list' && cmd.ids.length === 0) {
    if (cmd.json) out(`${JSON.stringify(quarantined, null, 2)}\n`);
    else if (quarantined.length === 0) out(`no quarantined segments in ${join(spoolDir, QUARANTINE_DIR)}\n`);
    else out(`${quarantined.map(describe).join('\n')}\n`);
    return 0;
  }
  if ((cmd.action !== 'replay' && cmd.action !== 'drop') || cmd.all === cmd.ids.length > 0) {
    out(`${SPOOL_USAGE}\n`);
    return 2;
  }
  const ids = cmd.all ? quarantined.map((q) => q.id) : cmd.ids;
  // Every id checked before anything moves: a typo does not leave the job half done.
  const unknown = ids.filter((id) => !quarantined.some((q) => q.id === id));
  if (unknown.length)
    throw new SpoolCommandError(
      `no quarantined segment ${unknown.join(', ')} in ${join(spoolDir, QUARANTINE_DIR)} (see \`pnpm collector spool list\`)`,
    );
  for (const id of ids) {
    const q = quarantined.find((s) => s.id === id)!;
    const rows = q.rows === null ? 'unreadable' : `${q.rows} rows`;
    if (cmd.action === 'replay') {
      releaseForReplay(spoolDir, id);
      out(`put back for replay: ${id} (${rows})\n`);
    } else {
      dropQuarantined(spoolDir, id);
      out(
        `dropped: ${id} (${rows}, first error: ${q.error ?? 'not recorded'}); recorded in ${join(spoolDir, QUARANTINE_DIR, 'dropped.log')}\n`,
      );
    }
  }
  if (cmd.action === 'replay' && ids.length) {
    out(
      `a running collector on this spool inserts them within ${REPLAY_POLL_MS / 1000} s; otherwise the next one to start does\n`,
    );
  }
  if (ids.length === 0) out('no quarantined segments\n');
  return 0;
}
