/** Records to files: NDJSON (one record per line) or CSV (one row per record, a fixed column set). */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { HandshakeRecord } from '@tlsrum/shared';

/** Every field of a record, in schema order (the schema declares them); absent optional fields are empty cells. */
export const CSV_COLUMNS = Object.keys(HandshakeRecord.properties) as ReadonlyArray<keyof HandshakeRecord>;

export type OutputFormat = 'ndjson' | 'csv';

export function formatOf(path: string): OutputFormat {
  if (/\.ndjson$|\.jsonl$/i.test(path)) return 'ndjson';
  if (/\.csv$/i.test(path)) return 'csv';
  throw new Error(`--out must end in .ndjson, .jsonl or .csv, got "${path}"`);
}

function csvCell(v: unknown): string {
  if (v === undefined || v === null) return '';
  const s = String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function toCsvRow(r: HandshakeRecord): string {
  return CSV_COLUMNS.map((c) => csvCell(r[c])).join(',');
}

export async function writeRecords(path: string, records: readonly HandshakeRecord[]): Promise<void> {
  const format = formatOf(path);
  const out = createWriteStream(path);
  const write = async (line: string) => {
    if (!out.write(`${line}\n`)) await once(out, 'drain');
  };
  if (format === 'csv') await write(CSV_COLUMNS.join(','));
  for (const r of records) await write(format === 'csv' ? toCsvRow(r) : JSON.stringify(r));
  out.end();
  await once(out, 'finish');
}
