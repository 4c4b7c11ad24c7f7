/**
 * A validated record → a `handshakes` row, as the column registry (columns.ts) says. The only place where
 * a record meets the request context: the country (already derived from the IP, which goes no further)
 * and the registered-sites check.
 *
 * Built once from the registry as one object literal (a fixed shape, one call per column) rather than a
 * loop filling an object: this runs for every ingested record (bench/ingest.ts).
 */
import type { HandshakeRecord } from '@tlsrum/shared';
import { COLUMN_LIST, type HandshakeRow, type RowContext } from './columns';

export const toRow = new Function(
  ...COLUMN_LIST.map((_, i) => `v${i}`),
  `return function toRow(r, c) { return { ${COLUMN_LIST.map((c, i) => `${c.name}: v${i}(r, c)`).join(', ')} }; };`,
)(...COLUMN_LIST.map((c) => c.value)) as (r: HandshakeRecord, ctx: RowContext) => HandshakeRow;
