import { appendResult } from './results';

/** Prints a human table; a bench then ends with printResult. */
export function printTable(title: string, rows: Array<Record<string, string | number>>): void {
  console.log(`\n${title}`);
  if (!rows.length) return;
  const cols = Object.keys(rows[0]!);
  const width = cols.map((c) => Math.max(c.length, ...rows.map((r) => String(r[c] ?? '').length)));
  const line = (cells: string[]) => cells.map((s, i) => s.padStart(width[i]!)).join('  ');
  console.log(line(cols));
  console.log(width.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows) console.log(line(cols.map((c) => String(r[c] ?? ''))));
}

/** Prints the bench's figures as one JSON object (its last line of output) and appends them to bench/results.jsonl. */
export function printResult(result: Record<string, unknown>): void {
  console.log(JSON.stringify(result));
  appendResult(result);
}

export const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;

export function machine(): string {
  return `${process.platform} ${process.arch}, node ${process.version}`;
}

export function quantile(xs: readonly number[], q: number): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return s[lo]! + (s[hi]! - s[lo]!) * (pos - lo);
}

export const median = (xs: readonly number[]) => quantile(xs, 0.5);
