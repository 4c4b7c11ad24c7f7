/**
 * A server that fails partway through an answer (a time limit reached after the first rows) has already
 * answered 200 and writes its error at the end of the body. Read as text, that answer is refused with the
 * store's own error, so the route says what happened (a 503 naming the limit) instead of analysing the
 * rows before it or failing on a row that is not JSON. The two forms are the server's: the tagged frame
 * of ClickHouse 25.11 and later, and the bare line before it; the client's own reader agrees on the first.
 */
import { Readable } from 'node:stream';
import { ResultSet } from '@clickhouse/client';
import { describe, expect, it } from 'vitest';
import { answerText } from '../../src/platform/store/answer-text';
import { clickhouseErrorName } from '../../src/ingest/store-errors';

const ROWS = '["DE",1,2]\n["FR",3,4]\n';
const MESSAGE =
  'Code: 159. DB::Exception: Timeout exceeded: elapsed 20.1 s, maximum: 20 s. (TIMEOUT_EXCEEDED) (version 25.11.2.24 (official build))';
const TAG = 'xkgnybgsfbkqtrxs';

/** The 25.11 frame: the message and its length in bytes between two tagged markers. */
const frame = (message: string, tag = TAG) =>
  `\r\n__exception__\r\n${tag}\n${message}\n${Buffer.byteLength(message) + 1} ${tag}\r\n__exception__\r\n`;

const resultSet = (body: string, headers: Record<string, string> = {}) =>
  ResultSet.instance({
    stream: Readable.from([Buffer.from(body)]),
    format: 'JSONCompactEachRow',
    query_id: 'q',
    response_headers: headers,
    log_error: () => {},
  });

const failure = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: unknown) => e as Error,
  );

describe("an answer read as text is whole, or fails with the store's error", () => {
  it('returns a whole answer as it is, with or without the tag header', async () => {
    expect(await answerText(resultSet(ROWS))).toBe(ROWS);
    expect(await answerText(resultSet(ROWS, { 'x-clickhouse-exception-tag': TAG }))).toBe(ROWS);
  });

  it("throws the error a 25.11 server framed at the end of the rows, as the client's own reader does", async () => {
    const body = ROWS + frame(MESSAGE);
    const ours = await failure(answerText(resultSet(body, { 'x-clickhouse-exception-tag': TAG })));
    const theirs = await failure(resultSet(body, { 'x-clickhouse-exception-tag': TAG }).json());
    expect(clickhouseErrorName(ours)).toBe('TIMEOUT_EXCEEDED');
    expect(ours?.message).toMatch(/^Timeout exceeded: elapsed 20\.1 s/);
    expect(clickhouseErrorName(theirs)).toBe('TIMEOUT_EXCEEDED');
    expect(ours?.message).toBe(theirs?.message);
  });

  it('reads a frame whose message is not ASCII: its length is in bytes', async () => {
    const message = 'Code: 395. DB::Exception: Ünexpected «valeur» 東京. (FUNCTION_THROW_IF_VALUE_IS_NON_ZERO)';
    const err = await failure(answerText(resultSet(ROWS + frame(message), { 'x-clickhouse-exception-tag': TAG })));
    expect(clickhouseErrorName(err)).toBe('FUNCTION_THROW_IF_VALUE_IS_NON_ZERO');
    expect(err?.message).toContain('東京');
  });

  it('throws the error an older server appended as a bare line after the rows', async () => {
    const err = await failure(answerText(resultSet(`${ROWS}${MESSAGE}\n`)));
    expect(clickhouseErrorName(err)).toBe('TIMEOUT_EXCEEDED');
  });

  it('leaves a row that merely mentions the marker alone', async () => {
    const body = '["__exception__",1,2]\n["Code: 1. x",3,4]\n';
    expect(await answerText(resultSet(body, { 'x-clickhouse-exception-tag': TAG }))).toBe(body);
  });
});
