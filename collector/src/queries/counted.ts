/**
 * The rows a figure counts, for every query that reads the raw table (cells, summary, what-if, alert
 * checks): plausible rows only (`implausible = 0`: no flag rule failed, the token was within its address's
 * budget), and of each client token at most K rows per cell and UTC day (CLIENT_RECORDS_PER_CELL_DAY).
 * One flooding client then weighs at most K records in each cell of each day, in every percentile, share,
 * count, alert and what-if — whatever it sent; the stored rows are all kept (nothing is discarded at
 * ingest), so K can change and the next query follows.
 *
 * The cap is `LIMIT K BY clientToken, day, <the query's cell keys>`: a streaming per-key counter, no sort.
 * That counter is one hash-map entry per key — with tokens rotating daily about one per row — and it runs
 * on one thread: the store merges every reading thread into one stream before a LIMIT BY, and the outer
 * query's aggregation then runs on that one stream too. Given the query's range, the rows are therefore
 * read as `UNION ALL` branches of whole UTC days (`dayBranches`: one per day for ranges up to 8 days, as
 * many as the machine has cores — the embedded store's threads — for longer ones), each capped on its
 * own: no key spans two days, so the rows kept are the same (the same K per token, cell and day), but the
 * branches run in parallel with smaller counters (a branch of one day leaves the day out of its key).
 * Measured on compare stack,mode (BENCHMARKS.md 2026-11-24 "Per-client cap: branches of whole UTC days"):
 * over 30 days one branch per day was best on 10 M rows but slower than one subquery on 1 M (each branch
 * has a fixed cost, and reads granules its neighbours read too), where one branch per core gained on both;
 * over 3 days one branch per day gained on 10 M (2.24× → 1.80× the capless query) and cost ≈ 4 ms on 1 M.
 * The capped query still costs well above the one without the cap (a per-row hash-map insert costs about
 * what the whole aggregation does), and a range inside one UTC day (one branch) gains nothing.
 * The day is `toDate(ts, 'UTC')` (a UInt16; `toStartOfDay` gives a DateTime64, slower to compute and hash).
 * The subquery selects only the columns the outer query reads (`columnsIn`): the store does not prune
 * the columns of a `LIMIT BY` subquery, and `SELECT *` made it read all thirty (≈ 2× the time of the
 * query without the cap, BENCHMARKS.md 2026-11-24 perf-query).
 * Which K rows of an over-cap client count is the order the store reads them in (in practice the order
 * they were inserted); an honest client over K is thinned, not excluded. docs/integrity.md says what is
 * exact (per the query's own cells, for the raw table) and what the rollup does.
 *
 * All SQL text here is fixed or comes from the catalogue's expressions; K is a validated integer.
 */

import { availableParallelism } from 'node:os';
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
 * A FROM clause: the counted rows of `handshakes` matching `where`, capped per client, day and `cellKeys`,
 * with the columns `reads` (the outer query's SQL text: its select list, grouping, ordering) names. With
 * `range` (the bounds `where` already applies, epoch ms), in branches of whole UTC days (`dayBranches`).
 */
export function countedRows(where: string, cellKeys: readonly string[], cap: number, reads: string, range?: { from: number; to: number }): string {
  if (!Number.isInteger(cap) || cap < 0) throw new RangeError(`the per-client cap must be a whole number, got ${cap}`);
  // ts always: the outer query's time bucket or range may name it only through an alias.
  const columns = [...new Set(['ts', ...columnsIn(reads)])];
  const select = `SELECT ${columns.join(', ')} FROM handshakes`;
  const keys = cellKeys.map((k) => `, ${k}`).join('');
  if (cap === 0) return `(\n  ${select}\n  WHERE (${where}) AND implausible = 0\n)`;
  if (!range) return `(\n  ${select}\n  WHERE (${where}) AND implausible = 0\n  LIMIT ${cap} BY clientToken, toDate(ts, 'UTC')${keys}\n)`;
  const { days, bounds } = dayBranches(range.from, range.to);
  if (bounds.some(([lo, hi]) => !Number.isSafeInteger(lo) || !Number.isSafeInteger(hi))) throw new RangeError(`not a range of epoch milliseconds: ${range.from}, ${range.to}`);
  // A branch of one day: every row has the same day, which then need not be in the key.
  const day = days === 1 ? '' : ", toDate(ts, 'UTC')";
  const branches = bounds.map(
    ([lo, hi]) =>
      `  ${select}\n  WHERE (${where}) AND implausible = 0 AND ts >= fromUnixTimestamp64Milli(toInt64(${lo}), 'UTC') AND ts < fromUnixTimestamp64Milli(toInt64(${hi}), 'UTC')\n  LIMIT ${cap} BY clientToken${day}${keys}`,
  );
  return `(\n${branches.join('\n  UNION ALL\n')}\n)`;
}
