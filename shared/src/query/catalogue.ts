/**
 * The query catalogue: every dimension the query API groups by and every filter it takes, declared once
 * with what a person reads about it (label, description, value labels). Plain data, no TypeBox, so the
 * dashboard can import it without the schema library; the query-string schemas (schemas.ts) and the
 * collector's SQL for each dimension (collector/src/query/dimensions.ts, a Record keyed by these names)
 * are built from or checked against it.
 */
import {
  BROWSERS,
  EVIDENCE_SOURCES,
  HANDSHAKE_CLASSES,
  PROTOCOLS,
  RECORD_SOURCES,
  TLS_VERSIONS,
  type Browser,
  type RecordSource,
} from '../constants';

/** Evidence sources that measured this very connection: the browser's (or the runner's) report, or the site's header. */
export const MEASURED_SOURCES = ['observed', 'server-timing'] as const;

export interface DimensionInfo {
  /** What the dashboard shows for the dimension. */
  label: string;
  /** The API documentation's text for it. */
  description: string;
  /** Every value a group key can take, in reading order; null when open (country codes). */
  values: readonly string[] | null;
  /** An open dimension's form, for the query string (a closed one takes its values). */
  pattern?: string;
}

/** A token as the record schema takes it (cipher, group, signature scheme), or `unknown`. */
const TOKEN_PATTERN = '^[A-Za-z0-9_.+-]{1,96}$';
/** How the key exchange group stands against a quantum computer: the `pq` dimension's values. */
export const PQ_CLASSES = ['hybrid', 'classical', 'unknown'] as const;

/**
 * In the order the API documents them. `stack` and `mode` are computed from other columns: what a site
 * owner can switch on (TLS 1.2 / 1.3 / HTTP/3) and how a handshake went (full / resumed / 0-RTT).
 */
export const DIMENSIONS = {
  tlsVersion: {
    label: 'TLS version',
    description: 'Negotiated TLS version (unknown when no source tells).',
    values: [...TLS_VERSIONS, 'unknown'],
  },
  protocol: { label: 'Protocol', description: 'Application protocol (nextHopProtocol).', values: PROTOCOLS },
  handshakeClass: {
    label: 'Handshake class',
    description: 'Round trips the TLS handshake cost before the request could go.',
    values: HANDSHAKE_CLASSES,
  },
  resumed: {
    label: 'Resumed',
    description: 'Whether the TLS session was resumed (true, false, unknown).',
    values: ['true', 'false', 'unknown'],
  },
  country: {
    label: 'Country',
    description: 'ISO 3166-1 alpha-2 country of the client (ZZ = unknown).',
    values: null,
    pattern: '^[A-Z]{2}$',
  },
  browser: { label: 'Browser', description: 'Browser family.', values: BROWSERS },
  source: {
    label: 'Source',
    description:
      "page for a site's own visitors (its beacon), rum for the extension's opt-in users, synthetic for the lab and the synthetic runner.",
    values: RECORD_SOURCES,
  },
  stack: {
    label: 'Protocol stack',
    description: 'TLS 1.2 or TLS 1.3 over TCP, or HTTP/3 (always TLS 1.3, over QUIC).',
    values: ['TLS 1.2', 'TLS 1.3', 'h3', 'unknown'],
  },
  mode: {
    label: 'Handshake mode',
    description: 'Full handshake, resumed session, or 0-RTT early data.',
    values: ['full', 'resumed', '0-RTT', 'unknown'],
  },
  versionEvidence: {
    label: 'TLS version known by',
    description: 'How the TLS version is known: the evidence source (shared/README.md).',
    values: EVIDENCE_SOURCES,
  },
  evidence: {
    label: 'Evidence',
    description: `measured: the TLS version was ${MEASURED_SOURCES.join(' or ')} for this connection; derived: implied, from the site profile, inferred or unknown.`,
    values: ['measured', 'derived'],
  },
  // The crypto lens. Firefox and the synthetic runner observe these per connection; Chromium
  // records of a registered site carry its latest probe's (cryptoSource, migration 0009); others 'unknown'.
  group: {
    label: 'Key exchange group',
    description:
      'Key exchange group as the browser names it, e.g. X25519, X25519MLKEM768, secp256r1 (unknown when no source tells).',
    values: null,
    pattern: TOKEN_PATTERN,
  },
  pq: {
    label: 'Post-quantum key exchange',
    description:
      'hybrid: a post-quantum hybrid group (ML-KEM / Kyber with X25519 or a NIST curve); classical: any other group; unknown: no group known.',
    values: PQ_CLASSES,
  },
  cipher: {
    label: 'Cipher suite',
    description: 'Negotiated cipher suite, e.g. TLS_AES_128_GCM_SHA256 (unknown when no source tells).',
    values: null,
    pattern: TOKEN_PATTERN,
  },
  certKey: {
    label: 'Certificate key',
    description:
      "The leaf certificate's key: RSA-<modulus bits> (RSA-2048, RSA-4096), ECDSA-P<curve bits> (ECDSA-P256, ECDSA-P384), Ed25519, other, or unknown.",
    values: null,
    pattern: '^(?:RSA(?:-[0-9]{1,5})?|ECDSA(?:-P[0-9]{1,5})?|Ed25519|other|unknown)$',
  },
  chainLength: {
    label: 'Certificate chain length',
    description: 'Certificates the server sent, leaf included (5+ for five or more; unknown when no source tells).',
    values: ['0', '1', '2', '3', '4', '5+', 'unknown'],
  },
  cryptoSource: {
    label: 'Crypto facts from',
    description:
      "Where a record's crypto facts come from: observed (the browser reported them for this connection: Firefox, the synthetic runner), probe (a Chromium record of a registered site, given the site's latest TLS probe), none.",
    values: ['observed', 'probe', 'none'],
  },
  signatureScheme: {
    label: 'Signature scheme',
    description:
      "The server's handshake signature scheme, e.g. ecdsa_secp256r1_sha256, rsa_pss_rsae_sha256 (Firefox only; unknown otherwise).",
    values: null,
    pattern: TOKEN_PATTERN,
  },
} as const satisfies Record<string, DimensionInfo>;
export type DimensionName = keyof typeof DIMENSIONS;
export const DIMENSION_NAMES = Object.keys(DIMENSIONS) as DimensionName[];

/** Dimensions whose share of records (a "mix") every handshake cell reports, each over its fixed values. */
export const MIX_DIMENSIONS = [
  'handshakeClass',
  'protocol',
  'tlsVersion',
  'mode',
] as const satisfies readonly DimensionName[];
export type MixName = (typeof MIX_DIMENSIONS)[number];

export interface FilterInfo {
  /** The dimension it restricts (absent for `site`, which is the reader's scope rather than a column value). */
  dimension?: DimensionName;
  label: string;
  /** The dashboard's option for "no filter". */
  all: string;
  description: string;
  /** The dashboard's option per value, in its order (absent: values come from the data or the collector). */
  valueLabels?: Readonly<Record<string, string>>;
  /** False: an API filter the dashboard's filter bar leaves out (its Cryptography panel splits by it instead). */
  control?: false;
}

/** A filter restricting a dimension to one value: its label and description are the dimension's. */
const valueFilter = <D extends DimensionName>(dimension: D, valueLabels?: Readonly<Record<string, string>>) =>
  ({
    dimension,
    label: DIMENSIONS[dimension].label,
    all: 'All',
    description: DIMENSIONS[dimension].description,
    ...(valueLabels ? { valueLabels } : {}),
  }) as const;
const apiOnlyFilter = <D extends DimensionName>(dimension: D) =>
  ({ ...valueFilter(dimension), control: false }) as const;

/** The filters of every read route, in the dashboard's order. */
export const FILTERS = {
  site: {
    label: 'Site',
    all: 'All sites',
    description:
      "One registered site (needs that site's read token, or the admin token). Without it: every site together.",
  },
  source: valueFilter('source', {
    page: 'Site visitors (beacon)',
    rum: 'Extension users',
    synthetic: 'Synthetic',
  } satisfies Record<RecordSource, string>),
  browser: valueFilter('browser', {
    chrome: 'Chrome',
    edge: 'Edge',
    chromium: 'Chromium',
    firefox: 'Firefox',
    safari: 'Safari',
    other: 'Other',
  } satisfies Record<Browser, string>),
  country: valueFilter('country'),
  evidence: { ...valueFilter('evidence', { measured: 'Observed + server-timing only' }), all: 'All evidence' },
  pq: valueFilter('pq', { hybrid: 'Post-quantum hybrid', classical: 'Classical', unknown: 'Unknown' } satisfies Record<
    (typeof PQ_CLASSES)[number],
    string
  >),
  group: apiOnlyFilter('group'),
  cipher: apiOnlyFilter('cipher'),
  certKey: apiOnlyFilter('certKey'),
  chainLength: apiOnlyFilter('chainLength'),
  signatureScheme: apiOnlyFilter('signatureScheme'),
} as const satisfies Record<string, FilterInfo>;
export type FilterName = keyof typeof FILTERS;
export const FILTER_NAMES = Object.keys(FILTERS) as FilterName[];
/** The filters that restrict a dimension's value (every filter but the site). */
export type ValueFilterName = {
  [K in FilterName]: (typeof FILTERS)[K] extends { dimension: DimensionName } ? K : never;
}[FilterName];
export const VALUE_FILTERS = FILTER_NAMES.filter((f): f is ValueFilterName => 'dimension' in FILTERS[f]);
export const filterDimension = (f: ValueFilterName): DimensionName => FILTERS[f].dimension;
