/**
 * The rows a figure counts, for every query that reads the raw table: plausible rows only (`implausible =
 * 0`: no flag rule failed, the token was within its address's budget), and of each client token at most K
 * (CLIENT_RECORDS_PER_CELL_DAY) per cell and UTC day, whatever it sent — in every percentile, share, count,
 * alert and what-if. The stored rows are all kept (nothing is discarded at ingest). Two forms:
 *
 * - `countedRows`, for figures of whole days (cells without a bucket or by day, the summary, what-if):
 *   the rows not marked `capped` at ingest (ingest/client-cap.ts: beyond the first K of the token, UTC
 *   day and site) — the same rows the rollups count (their views skip the marked ones), so a 6-day and a
 *   7-day range count alike. Every cell of a site's figures then holds at most K of a token's records a
 *   day; the cap costs one UInt8 column: 1.03–1.06× the query without it on 10 M records, where capping
 *   per query cell at read time costs 1.8–2.1× (bench:cap-cost; docs/decisions/0002-per-client-cap-at-ingest.md).
 *
 * - `cappedPerCell`, for cells shorter than a day (hourly series, the alert checks' windows): a client's
 *   first K of the day would all fall in its first hours, leaving its later hours out of every hourly
 *   figure, so these cap per their own cells at read time: `LIMIT K BY clientToken, day, <the query's
 *   cell keys>` — a streaming per-key counter, no sort, over the plausible rows (the marks ignored).
 *   That counter is one hash-map entry per key and runs on one thread (the store merges every reading
 *   thread into one stream before a LIMIT BY), so the range is read as `UNION ALL` branches of whole UTC
 *   days (`dayBranches`: one per day for ranges up to 8 days, as many as the machine has cores beyond),
 *   each capped on its own: no key spans two days, so the rows kept are the same, but the branches run in
 *   parallel (bench:cap-cost, `exact-days` against `exact`). The day is
 *   `toDate(ts, 'UTC')` (a UInt16). The subquery selects only the columns the outer query reads
 *   (`columnsIn`): the store does not prune the columns of a `LIMIT BY` subquery. Which K rows of an
 *   over-cap client count is the order the store reads them in (in practice insertion order); an honest
 *   client over K is thinned, not excluded.
 *
 * docs/integrity.md says what each form bounds. All SQL text here is fixed or comes from the catalogue's
 * expressions; K is a validated integer.
 */

import { availableParallelism } from 'node:os';
import { INSERT_COLUMNS } from '../ingest/columns';

/** K by default (CLIENT_RECORDS_PER_CELL_DAY): docs/integrity.md, "Per-client cap". */
export const DEFAULT_CLIENT_CAP = 5;

/** What a figure of whole days counts: a row that failed no plausibility rule and is within its client's cap. */
export const COUNTED = 'implausible = 0 AND capped = 0';

/**
 * The columns of `handshakes` (the column registry's) named in some SQL text, as whole words: what a query
 * reading the counted rows needs from them. A dimension added to the catalogue is picked up by its name.
 */
export function columnsIn(sql: string): string[] {
  const words = new Set(sql.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []);
  return INSERT_COLUMNS.filter((c) => words.has(c));
}

/**
 * UNION ALL branches of a capped read: one per core (the embedded store runs max_threads = cores; a server
 * may have more, and then gains less), at least 2.
 */
export const DAY_BRANCHES = Math.min(32, Math.max(2, availableParallelism()));
const DAY_MS = 86_400_000;
/** Ranges spanning at most this many UTC days are read one branch per day: a week, not aligned to midnight. */
export const SHORT_RANGE_DAYS = 8;

/**
 * [from, to) as at most `branches` runs of whole UTC days (default: one per day up to SHORT_RANGE_DAYS
 * days, else DAY_BRANCHES runs), each as epoch-ms bounds: every run starts at a UTC midnight and spans
 * `days` days (the last run may reach past `to`; the query's own range still bounds it).
 */
export function dayBranches(from: number, to: number, branches?: number): { days: number; bounds: [number, number][] } {
  const first = Math.floor(from / DAY_MS) * DAY_MS;
  const total = Math.max(1, Math.ceil((to - first) / DAY_MS));
  // Up to SHORT_RANGE_DAYS (the ranges the raw path serves): one branch per day (3 days as 2 branches of
  // 2 and 1 days gained little: 10 M rows, 2.18× → 2.06× the capless query, against 1.80× per day);
  // longer: one run per core.
  const days = Math.ceil(total / (branches ?? (total <= SHORT_RANGE_DAYS ? total : DAY_BRANCHES)));
  const bounds: [number, number][] = [];
  for (let lo = first; lo < to || bounds.length === 0; lo += days * DAY_MS) bounds.push([lo, lo + days * DAY_MS]);
  return { days, bounds };
}

/**
 * A FROM clause for a figure of whole days: the counted rows of `handshakes` matching `where`, with the
 * columns `reads` (the outer query's SQL text: its select list, grouping, ordering) names. `table`: a table
 * holding some of the raw table's rows with the same columns (the what-if's client sample, migration 0026).
 */
export function countedRows(where: string, reads: string, table = 'handshakes'): string {
  return `(\n  SELECT ${selected(reads).join(', ')} FROM ${table}\n  WHERE (${where}) AND ${COUNTED}\n)`;
}

// ts always: the outer query's time bucket or range may name it only through an alias.
const selected = (reads: string) => [...new Set(['ts', ...columnsIn(reads)])];

/**
 * A FROM clause for cells shorter than a day: the plausible rows of `handshakes` matching `where`, capped
 * per client, day and `cellKeys`, with the columns `reads` names. With `range` (the bounds `where`
 * already applies, epoch ms), in branches of whole UTC days (`dayBranches`).
 */
export function cappedPerCell(
  where: string,
  cellKeys: readonly string[],
  cap: number,
  reads: string,
  range?: { from: number; to: number },
): string {
  if (!Number.isInteger(cap) || cap < 0) throw new RangeError(`the per-client cap must be a whole number, got ${cap}`);
  const select = `SELECT ${selected(reads).join(', ')} FROM handshakes`;
  const keys = cellKeys.map((k) => `, ${k}`).join('');
  if (cap === 0) return `(\n  ${select}\n  WHERE (${where}) AND implausible = 0\n)`;
  if (!range)
    return `(\n  ${select}\n  WHERE (${where}) AND implausible = 0\n  LIMIT ${cap} BY clientToken, toDate(ts, 'UTC')${keys}\n)`;
  const { days, bounds } = dayBranches(range.from, range.to);
  if (bounds.some(([lo, hi]) => !Number.isSafeInteger(lo) || !Number.isSafeInteger(hi)))
    throw new RangeError(`not a range of epoch milliseconds: ${range.from}, ${range.to}`);
  // A branch of one day: every row has the same day, which then need not be in the key.
  const day = days === 1 ? '' : ", toDate(ts, 'UTC')";
  const branches = bounds.map(
    ([lo, hi]) =>
      `  ${select}\n  WHERE (${where}) AND implausible = 0 AND ts >= fromUnixTimestamp64Milli(toInt64(${lo}), 'UTC') AND ts < fromUnixTimestamp64Milli(toInt64(${hi}), 'UTC')\n  LIMIT ${cap} BY clientToken${day}${keys}`,
  );
  return `(\n${branches.join('\n  UNION ALL\n')}\n)`;
}
