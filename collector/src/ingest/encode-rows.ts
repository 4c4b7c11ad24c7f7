/**
 * `handshakes` rows → TabSeparated text for `INSERT INTO handshakes (…) FORMAT TabSeparated`.
 *
 * Why not JSONEachRow: the embedded store spends most of an insert parsing JSON (every key is read and
 * matched against the 31 columns of every row); TabSeparated is positional, so it parses several times
 * faster, and it is also cheaper to produce than JSON.stringify (bench/insert-format.ts measures both;
 * figures in BENCHMARKS.md). Text, not RowBinary, so a spool segment stays a readable, appendable string.
 *
 * The column list is explicit (TSV is positional): a column added to the table must be added here, and
 * `INSERT_COLUMNS` keeps the statement and the encoder in one place.
 */
import type { RowFormat } from './spool';
import type { HandshakeRow } from './to-row';

/** The columns, in the order each line carries them. */
export const INSERT_COLUMNS = [
  'ts',
  'receivedAt',
  'batchId',
  'site',
  'country',
  'entryType',
  'protocol',
  'transport',
  'tlsVersion',
  'tlsVersionSource',
  'resumed',
  'resumedSource',
  'handshakeClass',
  'dns',
  'tcp',
  'tls',
  'connect',
  'ttfb',
  'cipher',
  'keyExchangeGroup',
  'signatureScheme',
  'certChainLength',
  'browser',
  'browserMajor',
  'os',
  'effectiveType',
  'rttHint',
  'source',
  'agentName',
  'agentVersion',
  'clientToken',
] as const satisfies ReadonlyArray<keyof HandshakeRow>;

export const TSV_FORMAT = 'TabSeparated' satisfies RowFormat;

/** The statement that takes `encodeRowsTsv` output (rows follow as the body). */
export const TSV_INSERT_QUERY = `INSERT INTO handshakes (${INSERT_COLUMNS.join(', ')}) FORMAT ${TSV_FORMAT}`;

/** The insert for rows spooled in `format` (segments written before TabSeparated hold JSONEachRow). */
export function insertStatement(format: RowFormat): string {
  return format === 'TabSeparated' ? TSV_INSERT_QUERY : 'INSERT INTO handshakes FORMAT JSONEachRow';
}

// TabSeparated escaping: backslash, tab, newline and carriage return are written as \\, \t, \n, \r.
// Values come from schema-validated records (bounded strings), but a client chooses them, so every
// string is escaped: one stray tab must not shift the columns of a row.
const NEEDS_ESCAPE = /[\\\t\n\r]/;
const ESCAPE_ALL = /[\\\t\n\r]/g;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

export function tsvString(s: string): string {
  return NEEDS_ESCAPE.test(s) ? s.replace(ESCAPE_ALL, (c) => ESCAPES[c]!) : s;
}

const nullableNumber = (n: number | null): string => (n === null ? '\\N' : String(n));
const nullableBool = (b: boolean | null): string => (b === null ? '\\N' : b ? 'true' : 'false');

/** Epoch milliseconds as `seconds.mmm`: unambiguous for DateTime64(3) whatever date_time_input_format says. */
export function epochMsText(ms: number): string {
  const whole = Math.floor(ms / 1000);
  const frac = ms - whole * 1000;
  return `${whole}.${frac < 10 ? '00' : frac < 100 ? '0' : ''}${frac}`;
}

/**
 * One row as one TabSeparated line, newline included. Validated records never hold a tab, newline or
 * backslash, so the common case checks all string fields with one regex and writes them as they are;
 * only a row that fails the check pays for escaping each field.
 */
export function encodeRowTsv(r: HandshakeRow): string {
  const plain =
    r.batchId + r.site + r.country + r.entryType + r.protocol + r.transport + (r.tlsVersion ?? '') + r.tlsVersionSource +
    r.resumedSource + r.handshakeClass + r.cipher + r.keyExchangeGroup + r.signatureScheme + r.browser + r.os +
    r.effectiveType + r.source + r.agentName + r.agentVersion + r.clientToken;
  const e: (s: string) => string = NEEDS_ESCAPE.test(plain) ? tsvString : same;
  return `${epochMsText(r.ts)}\t${r.receivedAt}\t${e(r.batchId)}\t${e(r.site)}\t${e(r.country)}\t${e(r.entryType)}\t${e(r.protocol)}\t${e(r.transport)}\t${r.tlsVersion === null ? '\\N' : e(r.tlsVersion)}\t${e(r.tlsVersionSource)}\t${nullableBool(r.resumed)}\t${e(r.resumedSource)}\t${e(r.handshakeClass)}\t${r.dns}\t${r.tcp}\t${r.tls}\t${r.connect}\t${r.ttfb}\t${e(r.cipher)}\t${e(r.keyExchangeGroup)}\t${e(r.signatureScheme)}\t${nullableNumber(r.certChainLength)}\t${e(r.browser)}\t${r.browserMajor}\t${e(r.os)}\t${e(r.effectiveType)}\t${nullableNumber(r.rttHint)}\t${e(r.source)}\t${e(r.agentName)}\t${e(r.agentVersion)}\t${e(r.clientToken)}\n`;
}

const same = (s: string): string => s;

export function encodeRowsTsv(rows: readonly HandshakeRow[]): string {
  let out = '';
  for (const r of rows) out += encodeRowTsv(r);
  return out;
}
