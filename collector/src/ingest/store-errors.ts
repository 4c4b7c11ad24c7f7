/**
 * Which failed inserts are the segment's fault. A segment the store refuses for its content (a parse or
 * type error, a column the table lacks) fails the same way on every retry, and retrying it forever
 * would stall every later segment behind it: after a bounded number of tries it is quarantined.
 * Anything else (connection refused, timeout, out of memory, disk full, read-only, an error we do not
 * recognise) may pass, so it is retried forever and never quarantined.
 *
 * Recognised by the ClickHouse error name (`type` on the client's ClickHouseError, or the `(NAME)` a
 * server message carries), not by the message text, which changes between releases.
 */
import { SpoolFormatError } from './spool/format';

const CONTENT_ERRORS = new Set([
  'ATTEMPT_TO_READ_AFTER_EOF',
  'CANNOT_CONVERT_TYPE',
  'CANNOT_INSERT_NULL_IN_ORDINARY_COLUMN',
  'CANNOT_READ_ALL_DATA',
  'DUPLICATE_COLUMN',
  'INCORRECT_DATA',
  'INCORRECT_NUMBER_OF_COLUMNS',
  'NO_SUCH_COLUMN_IN_TABLE',
  'THERE_IS_NO_COLUMN',
  'TOO_LARGE_STRING_SIZE',
  'TYPE_MISMATCH',
  'VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE',
]);

/** The ClickHouse error name of `err`, if it has one. */
export function clickhouseErrorName(err: unknown): string | null {
  if (typeof err !== 'object' || err === null) return null;
  const type = (err as { type?: unknown }).type;
  if (typeof type === 'string' && /^[A-Z][A-Z0-9_]+$/.test(type)) return type;
  const message = (err as { message?: unknown }).message;
  const m = typeof message === 'string' ? /\(([A-Z][A-Z0-9_]+)\)/.exec(message) : null;
  return m ? m[1]! : null;
}

/** True when the store refused the rows themselves (quarantine after a few tries); false: retry forever. */
export function isContentError(err: unknown): boolean {
  if (err instanceof SpoolFormatError) return true;
  const name = clickhouseErrorName(err);
  return name !== null && (name.startsWith('CANNOT_PARSE_') || CONTENT_ERRORS.has(name));
}

/** An error as the quarantine records it: the ClickHouse error name first, when there is one. */
export function errorText(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const name = clickhouseErrorName(err);
  return name && !message.includes(name) ? `${name}: ${message.trim()}` : message.trim();
}
