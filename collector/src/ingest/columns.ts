/**
 * The column registry: every column of `handshakes` the collector writes, in insert order, with the
 * record field it stores, how its value is derived, and how it is encoded. `HandshakeRow`, `toRow`,
 * `INSERT_COLUMNS`, the TabSeparated encoder, the spool's segment header and the demo generator's
 * column set all derive from this list.
 *
 * Adding a record field: one line here (after the schema field and the migration that adds the column).
 * A column's position only matters for this release's writes: every spool segment records the columns
 * its rows carry, so segments written by an older release replay with their own list.
 */
import {
  plausibilityMask,
  roundPhase,
  TOKENS_PER_ADDRESS_FLAG,
  type HandshakeBatch,
  type HandshakeRecord,
  type ProbeCryptoFacts,
} from '@tlsrum/shared';
import { UNKNOWN_COUNTRY } from './country';

/** What a record meets at the collector: the batch it came in, the request's country and clock, the site list. */
export interface RowContext {
  /** `sentAt` bounds the records' timestamps (plausibility); without it, each record's own `ts` stands in. */
  batch: Pick<HandshakeBatch, 'batchId' | 'agent'> & Partial<Pick<HandshakeBatch, 'sentAt'>>;
  /** True for a record whose client token was one too many for its address today (ingest/token-budget.ts). */
  overTokenBudget?: (r: HandshakeRecord) => boolean;
  /** True for a record beyond the first K of its client token, UTC day and site (ingest/client-cap.ts). */
  overClientCap?: (r: HandshakeRecord, site: string) => boolean;
  /** The latest probe's crypto facts of a registered site (probe/crypto-facts.ts), for records that carry none. */
  probeCrypto?: (site: string) => ProbeCryptoFacts | null;
  /** Derived from the client address, which goes no further. */
  country: string;
  receivedAt: number;
  isRegisteredSite: (hostname: string) => boolean;
  /** The batch came with its site's read token: its records (that site's synthetic runs only) are the owner's. */
  owner?: boolean;
}

/**
 * How a value is written in TabSeparated. The type parameter ties each kind to the value type its
 * column's `value` must return, so a registry line cannot pair a string with a number encoder.
 */
export interface Kind<T> {
  readonly name: 'epochMs' | 'number' | 'nullableNumber' | 'nullableBool' | 'string' | 'nullableString';
  /** Phantom: only for type checking. */
  readonly _t?: T;
}
const kind = <T>(name: Kind<T>['name']): Kind<T> => ({ name });
/** DateTime64(3): epoch milliseconds written as `seconds.mmm`. */
const EPOCH_MS = kind<number>('epochMs');
const NUMBER = kind<number>('number');
const NULLABLE_NUMBER = kind<number | null>('nullableNumber');
const NULLABLE_BOOL = kind<boolean | null>('nullableBool');
const STRING = kind<string>('string');
const NULLABLE_STRING = kind<string | null>('nullableString');

export interface Column<T> {
  kind: Kind<T>;
  /** The record field stored in this column; null for a column the collector adds (batch, request). */
  field: keyof HandshakeRecord | null;
  value: (r: HandshakeRecord, ctx: RowContext) => T;
}
const col = <T>(
  kind: Kind<T>,
  field: keyof HandshakeRecord | null,
  value: (r: HandshakeRecord, ctx: RowContext) => T,
): Column<T> => ({
  kind,
  field,
  value,
});

// Optional strings are '' when absent (cheaper than Nullable for LowCardinality columns; migration 0001).
export const COLUMNS = {
  ts: col(EPOCH_MS, 'ts', (r) => r.ts),
  // DateTime column: whole seconds.
  receivedAt: col(NUMBER, null, (_, c) => Math.floor(c.receivedAt / 1000)),
  batchId: col(STRING, null, (_, c) => c.batch.batchId.toLowerCase()),
  // Privacy: a hostname is stored only when its site is registered, whatever the client sent.
  site: col(STRING, 'site', (r, c) => (r.site !== null && c.isRegisteredSite(r.site) ? r.site : '')),
  country: col(STRING, null, (_, c) => c.country || UNKNOWN_COUNTRY),
  entryType: col(STRING, 'entryType', (r) => r.entryType),
  protocol: col(STRING, 'protocol', (r) => r.protocol),
  transport: col(STRING, 'transport', (r) => r.transport),
  tlsVersion: col(NULLABLE_STRING, 'tlsVersion', (r) => r.tlsVersion),
  tlsVersionSource: col(STRING, 'tlsVersionSource', (r) => r.tlsVersionSource),
  resumed: col(NULLABLE_BOOL, 'resumed', (r) => r.resumed),
  resumedSource: col(STRING, 'resumedSource', (r) => r.resumedSource),
  handshakeClass: col(STRING, 'handshakeClass', (r) => r.handshakeClass),
  dns: col(NUMBER, 'dns', (r) => roundPhase(r.dns)),
  tcp: col(NUMBER, 'tcp', (r) => roundPhase(r.tcp)),
  tls: col(NUMBER, 'tls', (r) => roundPhase(r.tls)),
  connect: col(NUMBER, 'connect', (r) => roundPhase(r.connect)),
  ttfb: col(NUMBER, 'ttfb', (r) => roundPhase(r.ttfb)),
  // Crypto facts: the client's own, else (a record of a registered site that carries none, e.g. Chromium's)
  // the site's latest probe's, and cryptoSource says which (migration 0009).
  cipher: col(STRING, 'cipher', (r, c) => r.cipher ?? fromProbe(r, c)?.cipher ?? ''),
  keyExchangeGroup: col(STRING, 'group', (r, c) => r.group ?? fromProbe(r, c)?.group ?? ''),
  signatureScheme: col(STRING, 'signatureScheme', (r) => r.signatureScheme ?? ''),
  certChainLength: col(
    NULLABLE_NUMBER,
    'certChainLength',
    (r, c) => r.certChainLength ?? fromProbe(r, c)?.certChainLength ?? null,
  ),
  certKeyType: col(STRING, 'certKeyType', (r, c) => r.certKeyType ?? fromProbe(r, c)?.certKeyType ?? ''),
  certKeyBits: col(NULLABLE_NUMBER, 'certKeyBits', (r, c) => r.certKeyBits ?? fromProbe(r, c)?.certKeyBits ?? null),
  certChainBytes: col(
    NULLABLE_NUMBER,
    'certChainBytes',
    (r, c) => r.certChainBytes ?? fromProbe(r, c)?.certChainBytes ?? null,
  ),
  ocspStapled: col(NULLABLE_BOOL, 'ocspStapled', (r, c) => r.ocspStapled ?? fromProbe(r, c)?.ocspStapled ?? null),
  ech: col(NULLABLE_BOOL, 'ech', (r) => r.ech ?? null),
  cryptoSource: col(STRING, null, (r, c) => (hasCryptoFacts(r) ? 'observed' : fromProbe(r, c) ? 'probe' : '')),
  browser: col(STRING, 'browser', (r) => r.browser),
  browserMajor: col(NUMBER, 'browserMajor', (r) => r.browserMajor),
  os: col(STRING, 'os', (r) => r.os),
  effectiveType: col(STRING, 'effectiveType', (r) => r.effectiveType ?? ''),
  rttHint: col(NULLABLE_NUMBER, 'rttHint', (r) => r.rttHint ?? null),
  source: col(STRING, 'source', (r) => r.source),
  agentName: col(STRING, null, (_, c) => c.batch.agent.name),
  agentVersion: col(STRING, null, (_, c) => c.batch.agent.version),
  clientToken: col(STRING, 'clientToken', (r) => r.clientToken),
  // The flag rules the record fails (shared/src/plausibility.ts) and the tokens-per-address flag, as a
  // bit mask; any bit set keeps the row out of every figure (query/counted.ts, the rollup's view).
  implausible: col(NUMBER, null, (r, c) => flagsOf(r, c)),
  // Beyond the first K of its client token, UTC day and site (ingest/client-cap.ts): left out of every
  // figure of whole days (the rollups' views, the raw table's daily cells: query/counted.ts). A flagged
  // record counts in no figure, so it neither counts toward nor takes a key of the cap's memory: junk
  // cannot push a heavy client's count out of it.
  capped: col(NUMBER, null, (r, c) =>
    flagsOf(r, c) === 0 && c.overClientCap?.(r, r.site !== null && c.isRegisteredSite(r.site) ? r.site : '') ? 1 : 0,
  ),
  // Sent with the site's read token (migration 0014): the owner's own synthetic run, which that site's
  // token reads without the people threshold (query/cells.ts). Every other figure counts it as synthetic.
  owner: col(NUMBER, null, (_, c) => (c.owner ? 1 : 0)),
};

/** Each record's flag bits, computed once per record and context (the token budget counts as it answers). */
const flagMemo = new WeakMap<HandshakeRecord, { c: RowContext; mask: number }>();
function flagsOf(r: HandshakeRecord, c: RowContext): number {
  const memo = flagMemo.get(r);
  if (memo && memo.c === c) return memo.mask;
  const mask =
    plausibilityMask(r, { sentAt: c.batch.sentAt ?? r.ts }) |
    (c.overTokenBudget?.(r) ? TOKENS_PER_ADDRESS_FLAG.mask : 0);
  flagMemo.set(r, { c, mask });
  return mask;
}

/** The site's probe facts for a record that reports no crypto fact itself; null otherwise. */
function fromProbe(r: HandshakeRecord, c: RowContext): ProbeCryptoFacts | null {
  if (!c.probeCrypto || r.site === null || hasCryptoFacts(r) || !c.isRegisteredSite(r.site)) return null;
  return c.probeCrypto(r.site);
}

/** True when the client reported any crypto fact of the connection itself. */
function hasCryptoFacts(r: HandshakeRecord): boolean {
  return (
    r.group !== undefined ||
    r.cipher !== undefined ||
    r.certKeyType !== undefined ||
    r.certChainLength !== undefined ||
    r.signatureScheme !== undefined
  );
}

export type ColumnName = keyof typeof COLUMNS;

/** A `handshakes` row as the collector writes it. */
export type HandshakeRow = { [K in ColumnName]: ReturnType<(typeof COLUMNS)[K]['value']> };

/** The columns, in the order each TabSeparated line carries them. */
export const INSERT_COLUMNS = Object.keys(COLUMNS) as ColumnName[];

/** The registry as a list, for the code generated from it. */
export const COLUMN_LIST: ReadonlyArray<{ name: ColumnName } & Column<unknown>> = INSERT_COLUMNS.map((name) => ({
  name,
  ...(COLUMNS[name] as Column<unknown>),
}));

// Generated code names columns as properties: only plain identifiers may appear in it.
for (const { name } of COLUMN_LIST)
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`column name "${name}" is not an identifier`);
