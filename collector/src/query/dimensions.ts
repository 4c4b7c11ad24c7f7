/**
 * The SQL half of the query catalogue (the names, labels and values live in @tlsrum/shared/query): for
 * every dimension, its expression over the raw table and over the daily rollup, and the rollup cuts
 * holding the columns it is computed from (null: not in the rollup, so a query grouping or filtering by it
 * reads the raw table). A Record over the catalogue's names: the compiler refuses a dimension without SQL.
 * These are fixed texts; input never reaches SQL text (values travel as bound parameters, cells.ts).
 */
import { MEASURED_SOURCES, MIX_DIMENSIONS, DIMENSIONS, type DimensionName, type MixName } from '@tlsrum/shared/query';

export type { DimensionName as Dimension, MixName } from '@tlsrum/shared/query';
export type Table = 'raw' | 'rollup';

/** The rollup's key columns (migration 0011): a cut groups by some of them (sources.ts). */
export const ROLLUP_COLUMNS = [
  'site',
  'country',
  'browser',
  'source',
  'hour',
  'protocol',
  'tlsVersion',
  'resumed',
  'handshakeClass',
] as const;
/**
 * The hourly grain's key columns (migration 0013, handshakes_per_hour): the daily cuts' columns and two more,
 * held by cuts of that table only (sources.ts), in the order of its grouping() arguments.
 */
export const HOURLY_COLUMNS = [...ROLLUP_COLUMNS, 'versionEvidence', 'cryptoSource'] as const;
/** The crypto rollup's key columns (migration 0009, handshakes_crypto_per_day: one cut per site and for all sites). */
export const CRYPTO_ROLLUP_COLUMN_NAMES = ['kxGroup', 'certKey', 'chainLength', 'cipherSuite'] as const;
/**
 * The signature scheme's column in its own daily cuts (migration 0021, handshakes_signature_cuts), by the hour
 * (0028) and with country (0029).
 */
export const SIGNATURE_ROLLUP_COLUMN = 'sigScheme';
export type RollupColumn =
  (typeof HOURLY_COLUMNS)[number] | (typeof CRYPTO_ROLLUP_COLUMN_NAMES)[number] | typeof SIGNATURE_ROLLUP_COLUMN;

export interface DimensionSql {
  raw: string;
  /** Its expression over the rollup and the rollup columns it reads; null: not in the rollup. */
  rollup: { sql: string; columns: readonly RollupColumn[] } | null;
}

/** The rollup stores tlsVersion and resumed normalised ('unknown', 'true', 'false'): its columns are the raw expressions' values. */
const column = (raw: string, rollup: RollupColumn): DimensionSql => ({
  raw,
  rollup: { sql: rollup, columns: [rollup] },
});
const tlsVersion = column("ifNull(tlsVersion, 'unknown')", 'tlsVersion');
const protocol = column('protocol', 'protocol');
const resumed = column("multiIf(resumed IS NULL, 'unknown', resumed, 'true', 'false')", 'resumed');
const handshakeClass = column('handshakeClass', 'handshakeClass');
const versionEvidence = column('tlsVersionSource', 'versionEvidence');

/**
 * The crypto dimensions, held by the crypto rollup (migration 0009, handshakes_crypto_per_day): its view
 * stores these raw expressions' values under the rollup column names (a test ties the two texts).
 */
export const CRYPTO_ROLLUP_COLUMNS = {
  group: ["if(keyExchangeGroup = '', 'unknown', keyExchangeGroup)", 'kxGroup'],
  certKey: [
    "multiIf(certKeyType = '', 'unknown', certKeyType = 'rsa', if(certKeyBits IS NULL, 'RSA', concat('RSA-', toString(certKeyBits))), certKeyType = 'ecdsa', if(certKeyBits IS NULL, 'ECDSA', concat('ECDSA-P', toString(certKeyBits))), certKeyType = 'ed25519', 'Ed25519', 'other')",
    'certKey',
  ],
  chainLength: [
    "multiIf(certChainLength IS NULL, 'unknown', certChainLength >= 5, '5+', toString(certChainLength))",
    'chainLength',
  ],
  cipher: ["if(cipher = '', 'unknown', cipher)", 'cipherSuite'],
} as const;
const crypto = (d: keyof typeof CRYPTO_ROLLUP_COLUMNS) =>
  column(CRYPTO_ROLLUP_COLUMNS[d][0], CRYPTO_ROLLUP_COLUMNS[d][1]);
const group = crypto('group');

/** An expression over other dimensions' expressions, in both tables (reading all their rollup columns). */
function derived(parts: DimensionSql[], sql: (e: (d: DimensionSql) => string) => string): DimensionSql {
  const columns = [...new Set(parts.flatMap((p) => p.rollup?.columns ?? []))];
  return {
    raw: sql((d) => d.raw),
    rollup: parts.every((p) => p.rollup) ? { sql: sql((d) => d.rollup!.sql), columns } : null,
  };
}

export const DIMENSION_SQL: Record<DimensionName, DimensionSql> = {
  tlsVersion,
  protocol,
  handshakeClass,
  resumed,
  country: column('country', 'country'),
  browser: column('browser', 'browser'),
  source: column('source', 'source'),
  stack: derived(
    [protocol, tlsVersion],
    (e) =>
      `multiIf(${e(protocol)} = 'h3', 'h3', ${e(tlsVersion)} = '1.3', 'TLS 1.3', ${e(tlsVersion)} = '1.2', 'TLS 1.2', 'unknown')`,
  ),
  mode: derived(
    [handshakeClass, resumed],
    (e) =>
      `multiIf(${e(handshakeClass)} = '0rtt', '0-RTT', ${e(resumed)} = 'true', 'resumed', ${e(resumed)} = 'false', 'full', 'unknown')`,
  ),
  // The evidence and the crypto facts' source are held by cuts of the hourly grain only (migration 0013).
  versionEvidence,
  evidence: derived(
    [versionEvidence],
    (e) => `if(${e(versionEvidence)} IN (${MEASURED_SOURCES.map((s) => `'${s}'`).join(', ')}), 'measured', 'derived')`,
  ),
  group,
  // Hybrid: a group with a post-quantum KEM in it (X25519MLKEM768, SecP256r1MLKEM768, X25519Kyber768Draft00 …).
  pq: derived(
    [group],
    (e) => `multiIf(${e(group)} = 'unknown', 'unknown', match(${e(group)}, '(?i)mlkem|kyber'), 'hybrid', 'classical')`,
  ),
  cipher: crypto('cipher'),
  certKey: crypto('certKey'),
  chainLength: crypto('chainLength'),
  cryptoSource: column("if(cryptoSource = '', 'none', cryptoSource)", 'cryptoSource'),
  signatureScheme: column("if(signatureScheme = '', 'unknown', signatureScheme)", SIGNATURE_ROLLUP_COLUMN),
};

/** A dimension's expression in a table (the rollup only for a dimension it holds: chooseReadTable checks). */
export function dimensionSql(d: DimensionName, t: Table): string {
  const e = DIMENSION_SQL[d];
  if (t === 'raw') return e.raw;
  if (!e.rollup) throw new Error(`the rollup does not hold ${d}`);
  return e.rollup.sql;
}

/** The fixed values each mix (share of records) is reported for: every cell has the same keys. */
export const MIXES = Object.fromEntries(MIX_DIMENSIONS.map((m) => [m, DIMENSIONS[m].values])) as {
  [M in MixName]: (typeof DIMENSIONS)[M]['values'];
};

export { filterDimension } from '@tlsrum/shared/query';
