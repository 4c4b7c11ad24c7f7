/**
 * `handshakes` rows → TabSeparated text for `INSERT INTO handshakes (…) FORMAT TabSeparated`.
 *
 * Why not JSONEachRow: the embedded store spends most of an insert parsing JSON (every key is read and
 * matched against the 31 columns of every row); TabSeparated is positional, so it parses several times
 * faster, and it is also cheaper to produce than JSON.stringify (bench/insert-format.ts measures both;
 * figures in BENCHMARKS.md). Text, not RowBinary, so a spool segment stays a readable, appendable string.
 *
 * The encoder is generated once, at load, from the column registry (columns.ts): one template literal
 * with every column in `INSERT_COLUMNS` order, as fast as a hand-unrolled one and never out of step
 * with the column list.
 */
import type { HandshakeRecord } from '@tlsrum/shared';
import { COLUMN_LIST, INSERT_COLUMNS, type HandshakeRow, type RowContext } from './columns';

/** The statement that takes `encodeRowsTsv` output (rows follow as the body). */
export const TSV_INSERT_QUERY = `INSERT INTO handshakes (${INSERT_COLUMNS.join(', ')}) FORMAT TabSeparated`;

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
const same = (s: string): string => s;

/** Epoch milliseconds as `seconds.mmm`: unambiguous for DateTime64(3) whatever date_time_input_format says. */
export function epochMsText(ms: number): string {
  const whole = Math.floor(ms / 1000);
  const frac = ms - whole * 1000;
  return `${whole}.${frac < 10 ? '00' : frac < 100 ? '0' : ''}${frac}`;
}

/** The expression that writes one column of row `r` (escaping through `e`). */
function fieldCode(kind: (typeof COLUMN_LIST)[number]['kind']['name'], v: string): string {
  switch (kind) {
    case 'epochMs':
      return `\${epochMsText(${v})}`;
    case 'number':
      return `\${${v}}`;
    case 'nullableNumber':
      return `\${nullableNumber(${v})}`;
    case 'nullableBool':
      return `\${nullableBool(${v})}`;
    case 'string':
      return `\${e(${v})}`;
    case 'nullableString':
      return `\${${v} === null ? '\\\\N' : e(${v})}`;
  }
}

/**
 * Validated records never hold a tab, newline or backslash, so the common case checks all string
 * fields with one regex over their concatenation and writes them as they are; only a row that fails
 * the check pays for escaping each field. `valueOf` is the expression for column i's value.
 */
function encoderSource(
  columns: typeof COLUMN_LIST,
  params: string,
  prelude: string[],
  valueOf: (i: number) => string,
): string {
  const strings = columns.flatMap((c, i) =>
    c.kind.name === 'string' ? [valueOf(i)] : c.kind.name === 'nullableString' ? [`(${valueOf(i)} ?? '')`] : [],
  );
  const line = columns.map((c, i) => fieldCode(c.kind.name, valueOf(i))).join('\\t');
  return [
    `return function encode(${params}) {`,
    ...prelude,
    `  const plain = ${strings.length ? strings.join(' + ') : "''"};`,
    '  const e = NEEDS_ESCAPE.test(plain) ? tsvString : same;',
    `  return \`${line}\\n\`;`,
    '};',
  ].join('\n');
}

const HELPERS = { epochMsText, nullableNumber, nullableBool, tsvString, same, NEEDS_ESCAPE };

function compile<F>(source: string, extra: Record<string, unknown> = {}): F {
  const scope = { ...HELPERS, ...extra };
  return new Function(...Object.keys(scope), source)(...Object.values(scope)) as F;
}

/** An encoder writing `columns` of a row, in that order (the spool's tests write older column lists with it). */
export function tsvEncoder(columns: readonly string[]): (r: HandshakeRow) => string {
  const known = columns.map((name) => {
    const c = COLUMN_LIST.find((k) => k.name === name);
    if (!c) throw new Error(`"${name}" is not in the column registry`);
    return c;
  });
  return compile(encoderSource(known, 'r', [], (i) => `r.${known[i]!.name}`));
}

/** One row as one TabSeparated line with every registry column, newline included. */
export const encodeRowTsv = tsvEncoder(INSERT_COLUMNS);

/**
 * A record straight to its TabSeparated line (= `encodeRowTsv(toRow(r, ctx))`): each column's registry
 * `value` into a local, then the line, without the intermediate row object — one allocation fewer per
 * ingested record, which bench:ingest's profile showed as garbage-collector time.
 */
export const encodeRecordTsv: (r: HandshakeRecord, ctx: RowContext) => string = compile(
  encoderSource(
    COLUMN_LIST,
    'r, ctx',
    COLUMN_LIST.map((_, i) => `  const x${i} = v${i}(r, ctx);`),
    (i) => `x${i}`,
  ),
  Object.fromEntries(COLUMN_LIST.map((c, i) => [`v${i}`, c.value])),
);

export function encodeRowsTsv(rows: readonly HandshakeRow[]): string {
  let out = '';
  for (const r of rows) out += encodeRowTsv(r);
  return out;
}
