/**
 * The monthly dataset's columns, declared once: the export's SELECT list, the order of its rows, the files'
 * header and the README's column table are all made from this list (test/datasets.test.ts reads both files
 * back and checks them against it).
 *
 * Each column's SQL reads the export's base rows (export.ts: `r_`-prefixed names, so no output alias shadows
 * an input column) and the row's `level` (which keys were merged, see plan.ts). Key columns group; the others
 * aggregate. Every value is plain text, an integer or a number: nothing a spreadsheet cannot read.
 */
import { DIMENSIONS } from '@tlsrum/shared/query';
import { BUCKET_GROWTH, BUCKET_LOW_MS, BUCKETS, bucketIndexSql } from '../query/histogram';

/** The value a merged key column takes: "the values without a row of their own, together". */
export const MERGED = '*';

export interface DatasetColumn {
  name: string;
  /** The ClickHouse type the value is cast to (and the Parquet file therefore holds). */
  type: string;
  sql: string;
  description: string;
  /** A key column: rows are grouped and ordered by the key columns, in this order. */
  key?: true;
}

const list = (values: readonly string[]) => values.map((v) => `\`${v}\``).join(', ');
const mergedNote = (what: string) =>
  ` \`${MERGED}\`: the ${what} of this row's other keys that have no row of their own, together (each too small alone; see "Suppression").`;

/** A phase's percentile, exact over the row's records (quantileExact: the value of 0-based rank ⌊level · n⌋), rounded to 0.1 ms. */
const percentile = (phase: 'tls' | 'connect' | 'ttfb', level: number, label: string): DatasetColumn => ({
  name: `${phase}_p${Math.round(level * 100)}_ms`,
  type: 'Float64',
  sql: `round(toFloat64(quantileExact(${level})(r_${phase})), 1)`,
  description: `${Math.round(level * 100)}th percentile of ${label}, milliseconds (exact over the row's records, rounded to 0.1 ms).`,
});

const PHASE_LABELS = {
  tls: 'the TLS phase (`connectEnd − secureConnectionStart`: the handshake until the request could go)',
  connect: 'the connection set-up (`connectEnd − connectStart`: TCP and TLS, or the QUIC handshake)',
  ttfb: 'time to first byte (`responseStart − requestStart`)',
} as const;

export const DATASET_COLUMNS: readonly DatasetColumn[] = [
  {
    name: 'month',
    type: 'String',
    sql: '{month:String}',
    key: true,
    description: 'The UTC calendar month of the connections, `YYYY-MM`.',
  },
  {
    name: 'country',
    type: 'String',
    sql: 'r_country',
    key: true,
    description:
      'ISO 3166-1 alpha-2 country of the client, looked up from its address when the record arrived (the address itself is never stored); `ZZ` = unknown.',
  },
  {
    name: 'browser',
    type: 'String',
    sql: `if(level IN (1, 3), '${MERGED}', r_browser)`,
    key: true,
    description: `Browser family: ${list(DIMENSIONS.browser.values)}.${mergedNote('browser families')}`,
  },
  {
    name: 'protocol',
    type: 'String',
    sql: 'r_protocol',
    key: true,
    description: `Application protocol (\`nextHopProtocol\`): ${list(DIMENSIONS.protocol.values)}; \`h3\` runs over QUIC, the others over TCP.`,
  },
  {
    name: 'tls_version',
    type: 'String',
    sql: 'r_tls_version',
    key: true,
    description: `Negotiated TLS version: ${list(DIMENSIONS.tlsVersion.values)} (unknown when nothing the client could see tells; see "Evidence").`,
  },
  {
    name: 'handshake_mode',
    type: 'String',
    sql: 'r_mode',
    key: true,
    description: `${DIMENSIONS.mode.description} Values: ${list(DIMENSIONS.mode.values)} (unknown when the client could not tell full from resumed).`,
  },
  {
    name: 'key_exchange',
    type: 'String',
    sql: `if(level IN (2, 3), '${MERGED}', r_kx)`,
    key: true,
    description: `Key exchange class: ${list(DIMENSIONS.pq.values)} — ${DIMENSIONS.pq.description}${mergedNote('key-exchange classes')}`,
  },
  {
    name: 'clients',
    type: 'UInt64',
    sql: 'uniqExact(r_client)',
    description:
      'Distinct client tokens among the records (exact). A token is random and lives one UTC day, so over a month this counts client-days: one person active every day of a 31-day month holds 31.',
  },
  {
    name: 'records',
    type: 'UInt64',
    sql: 'count()',
    description: 'Connections counted (plausible, within the per-client cap, from real users).',
  },
  percentile('tls', 0.5, PHASE_LABELS.tls),
  percentile('tls', 0.75, PHASE_LABELS.tls),
  percentile('tls', 0.95, PHASE_LABELS.tls),
  percentile('connect', 0.5, PHASE_LABELS.connect),
  percentile('connect', 0.75, PHASE_LABELS.connect),
  percentile('connect', 0.95, PHASE_LABELS.connect),
  percentile('ttfb', 0.5, PHASE_LABELS.ttfb),
  percentile('ttfb', 0.75, PHASE_LABELS.ttfb),
  percentile('ttfb', 0.95, PHASE_LABELS.ttfb),
  {
    name: 'tls_histogram',
    type: 'Array(UInt64)',
    sql: `countResample(0, ${BUCKETS}, 1)(${bucketIndexSql('tls').replaceAll('tls', 'r_tls')})`,
    description:
      `Records per TLS-phase bucket, ${BUCKETS} counts (the collector's rollup buckets): bucket 0 holds values below ${BUCKET_LOW_MS} ms, ` +
      `bucket i ≥ 1 holds [${BUCKET_LOW_MS} · ${BUCKET_GROWTH}^(i−1), ${BUCKET_LOW_MS} · ${BUCKET_GROWTH}^i) ms (the last also everything above); bucket i is the list's element i counted from 0 (element i + 1 in ClickHouse's arrays, which count from 1). ` +
      `They sum to \`records\` and add up across rows: any percentile of any union of rows is the bucket holding its rank, within ${((Math.sqrt(BUCKET_GROWTH) - 1) * 100).toFixed(2)} % of exact when reported as the bucket's geometric middle ${BUCKET_LOW_MS} · ${BUCKET_GROWTH}^(i−½).`,
  },
];

export const KEY_COLUMNS = DATASET_COLUMNS.filter((c) => c.key);
export const COLUMN_NAMES = DATASET_COLUMNS.map((c) => c.name);
