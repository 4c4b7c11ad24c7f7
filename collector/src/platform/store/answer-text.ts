/**
 * A result's whole text, or the store's error when the answer broke off partway. A server that fails
 * after it has sent rows (a query reaching its time limit mid-answer) has already said 200, so it writes
 * the error at the end of the body instead: since ClickHouse 25.11 in a frame marked by the tag of the
 * `x-clickhouse-exception-tag` header, before that as a bare "Code: N. DB::Exception: … (NAME)" line. The
 * client's `json()` and `stream()` look for it; its `text()` does not, and the rows read before it would
 * pass for the whole answer (or the error line for a row that is not JSON).
 */
import {
  EXCEPTION_TAG_HEADER_NAME,
  extractErrorAtTheEndOfChunk,
  parseError,
  type DataFormat,
  type ResultSet,
} from '@clickhouse/client';

const FRAME_END = '__exception__\r\n';
/** Enough of the text's end to hold the frame: an error message is far shorter. */
const TAIL_CHARS = 1 << 20;

export async function answerText(rs: ResultSet<DataFormat>): Promise<string> {
  return checkedText(await rs.text(), rs.response_headers[EXCEPTION_TAG_HEADER_NAME]);
}

/** `text` when it is a whole answer; else throws the store's error it ends with. */
function checkedText(text: string, exceptionTag: string | string[] | undefined): string {
  if (typeof exceptionTag === 'string' && text.endsWith(FRAME_END))
    throw extractErrorAtTheEndOfChunk(Buffer.from(text.slice(-TAIL_CHARS)), exceptionTag);
  const lastLine = text.slice(text.lastIndexOf('\n', text.length - 2) + 1);
  if (/^Code: \d+\. /.test(lastLine)) throw parseError(lastLine.trim());
  return text;
}
