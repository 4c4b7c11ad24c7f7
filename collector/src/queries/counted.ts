/**
 * The rows a figure counts, for every query that reads the raw table (cells, summary, what-if, alert
 * checks): plausible rows only (`implausible = 0`: no flag rule failed, the token was within its address's
 * budget), and of each client token at most K rows per cell and UTC day (CLIENT_RECORDS_PER_CELL_DAY).
 * One flooding client then weighs at most K records in each cell of each day, in every percentile, share,
 * count, alert and what-if — whatever it sent; the stored rows are all kept (nothing is discarded at
 * ingest), so K can change and the next query follows.
 *
 * The cap is `LIMIT K BY clientToken, day, <the query's cell keys>`: a streaming per-key counter, no sort.
 * The subquery selects only the columns the outer query reads (`columnsIn`): the store does not prune
 * the columns of a `LIMIT BY` subquery, and `SELECT *` made it read all thirty (≈ 2× the time of the
 * query without the cap, BENCHMARKS.md 2026-11-24 perf-query).
 * Which K rows of an over-cap client count is the order the store reads them in (in practice the order
 * they were inserted); an honest client over K is thinned, not excluded. docs/integrity.md says what is
 * exact (per the query's own cells, for the raw table) and what the rollup does.
 *
 * All SQL text here is fixed or comes from the catalogue's expressions; K is a validated integer.
 */

import { INSERT_COLUMNS } from '../ingest/columns';

/** K by default (CLIENT_RECORDS_PER_CELL_DAY): docs/integrity.md, "Per-client cap". */
export const DEFAULT_CLIENT_CAP = 5;

/**
 * The columns of `handshakes` (the column registry's) named in some SQL text, as whole words: what a query
 * reading the counted rows needs from them. A dimension added to the catalogue is picked up by its name.
 */
export function columnsIn(sql: string): string[] {
  const words = new Set(sql.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []);
  return INSERT_COLUMNS.filter((c) => words.has(c));
}

/**
 * A FROM clause: the counted rows of `handshakes` matching `where`, capped per client, day and `cellKeys`,
 * with the columns `reads` (the outer query's SQL text: its select list, grouping, ordering) names.
 */
export function countedRows(where: string, cellKeys: readonly string[], cap: number, reads: string): string {
  if (!Number.isInteger(cap) || cap < 0) throw new RangeError(`the per-client cap must be a whole number, got ${cap}`);
  const limit = cap > 0 ? `\n  LIMIT ${cap} BY clientToken, toStartOfDay(ts, 'UTC')${cellKeys.map((k) => `, ${k}`).join('')}` : '';
  // ts always: the outer query's time bucket or range may name it only through an alias.
  const columns = [...new Set(['ts', ...columnsIn(reads)])];
  return `(\n  SELECT ${columns.join(', ')} FROM handshakes\n  WHERE (${where}) AND implausible = 0${limit}\n)`;
}
