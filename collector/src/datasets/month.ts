/**
 * Months as the dataset names them (`YYYY-MM`, UTC) and when one is over. A month is over once no record
 * of it can still arrive: ingest takes records up to 24 h from the collector's clock (MAX_CLOCK_SKEW_MS),
 * so the last day's records may come in until 24 h after the month's end. Exported before that, a later
 * export of the same month could hold more records — and the difference of the two files would be
 * exactly those late records, a group of any size.
 */
import { MAX_CLOCK_SKEW_MS } from '../ingest/steps';

export const MONTH_PATTERN = '^[0-9]{4}-(?:0[1-9]|1[0-2])$';
const MONTH_RE = new RegExp(MONTH_PATTERN);
const DAY_MS = 86_400_000;

export class DatasetError extends Error {
  override name = 'DatasetError';
}

export interface MonthRange {
  month: string;
  /** Epoch ms of the first instant, and of the first instant of the next month. */
  from: number;
  to: number;
}

/** The month `text` names, or a DatasetError saying what a month looks like. */
export function parseMonth(text: string): MonthRange {
  if (!MONTH_RE.test(text)) throw new DatasetError(`"${text}" is not a month: write it as YYYY-MM, e.g. 2026-10`);
  const [y, m] = text.split('-').map(Number) as [number, number];
  // Records carry timestamps from 2020 on (MIN_TS): an earlier month cannot have any.
  if (y < 2020) throw new DatasetError(`${text} is before 2020: no record can be that old`);
  return { month: text, from: Date.UTC(y, m - 1, 1), to: Date.UTC(y, m, 1) };
}

/** When the month's last record can no longer arrive (epoch ms). */
export const closesAt = (r: MonthRange): number => r.to + MAX_CLOCK_SKEW_MS;

export const isoMinute = (ms: number): string => `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/** Throws unless the month is over at `now` and its records are all still kept (RETENTION_DAYS). */
export function checkExportable(r: MonthRange, now: number, retentionDays: number): void {
  if (now < closesAt(r)) {
    throw new DatasetError(
      `${r.month} is not over: records of it are taken until ${isoMinute(closesAt(r))} (24 h after its last day, since a client's clock may be a day off); export it from then on`,
    );
  }
  // The store drops records older than RETENTION_DAYS: a month partly gone would publish a part under its name.
  if (r.from < now - retentionDays * DAY_MS) {
    throw new DatasetError(
      `${r.month} is partly past the store's retention (RETENTION_DAYS = ${retentionDays}): some of its records are already deleted`,
    );
  }
}

/** The latest month over at `now`. */
export function latestClosedMonth(now: number): MonthRange {
  const d = new Date(now - MAX_CLOCK_SKEW_MS);
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth(); // 0-based: the month before the one `now − 24 h` is in
  const prev = new Date(Date.UTC(y, m - 1, 1));
  return parseMonth(`${prev.getUTCFullYear()}-${String(prev.getUTCMonth() + 1).padStart(2, '0')}`);
}
