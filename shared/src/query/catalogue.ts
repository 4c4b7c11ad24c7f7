/**
 * The query catalogue: every dimension the query API groups by and every filter it takes, declared once
 * with what a person reads about it (label, description, value labels). Plain data, no TypeBox, so the
 * dashboard can import it without the schema library; the query-string schemas (schemas.ts) and the
 * collector's SQL for each dimension (collector/src/queries/dimensions.ts, a Record keyed by these names)
 * are built from or checked against it.
 */
import { BROWSERS, EVIDENCE_SOURCES, HANDSHAKE_CLASSES, PROTOCOLS, RECORD_SOURCES, TLS_VERSIONS, type Browser, type RecordSource } from '../constants';

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

/**
 * In the order the API documents them. `stack` and `mode` are computed from other columns: what a site
 * owner can switch on (TLS 1.2 / 1.3 / HTTP/3) and how a handshake went (full / resumed / 0-RTT).
 */
export const DIMENSIONS = {
  tlsVersion: { label: 'TLS version', description: 'Negotiated TLS version (unknown when no source tells).', values: [...TLS_VERSIONS, 'unknown'] },
  protocol: { label: 'Protocol', description: 'Application protocol (nextHopProtocol).', values: PROTOCOLS },
  handshakeClass: { label: 'Handshake class', description: 'Round trips the TLS handshake cost before the request could go.', values: HANDSHAKE_CLASSES },
  resumed: { label: 'Resumed', description: 'Whether the TLS session was resumed (true, false, unknown).', values: ['true', 'false', 'unknown'] },
  country: { label: 'Country', description: 'ISO 3166-1 alpha-2 country of the client (ZZ = unknown).', values: null, pattern: '^[A-Z]{2}$' },
  browser: { label: 'Browser', description: 'Browser family.', values: BROWSERS },
  source: { label: 'Source', description: 'rum for real users, synthetic for the lab and the synthetic runner.', values: RECORD_SOURCES },
  stack: { label: 'Protocol stack', description: 'TLS 1.2 or TLS 1.3 over TCP, or HTTP/3 (always TLS 1.3, over QUIC).', values: ['TLS 1.2', 'TLS 1.3', 'h3', 'unknown'] },
  mode: { label: 'Handshake mode', description: 'Full handshake, resumed session, or 0-RTT early data.', values: ['full', 'resumed', '0-RTT', 'unknown'] },
  versionEvidence: { label: 'TLS version known by', description: 'How the TLS version is known: the evidence source (shared/README.md).', values: EVIDENCE_SOURCES },
  evidence: {
    label: 'Evidence',
    description: `measured: the TLS version was ${MEASURED_SOURCES.join(' or ')} for this connection; derived: implied, from the site profile, inferred or unknown.`,
    values: ['measured', 'derived'],
  },
} as const satisfies Record<string, DimensionInfo>;
export type DimensionName = keyof typeof DIMENSIONS;
export const DIMENSION_NAMES = Object.keys(DIMENSIONS) as DimensionName[];

/** Dimensions whose share of records (a "mix") every handshake cell reports, each over its fixed values. */
export const MIX_DIMENSIONS = ['handshakeClass', 'protocol', 'tlsVersion', 'mode'] as const satisfies readonly DimensionName[];
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
}

/** A filter restricting a dimension to one value: its label and description are the dimension's. */
const valueFilter = <D extends DimensionName>(dimension: D, valueLabels?: Readonly<Record<string, string>>) =>
  ({ dimension, label: DIMENSIONS[dimension].label, all: 'All', description: DIMENSIONS[dimension].description, ...(valueLabels ? { valueLabels } : {}) }) as const;

/** The filters of every read route, in the dashboard's order. */
export const FILTERS = {
  site: {
    label: 'Site',
    all: 'All sites',
    description: "One registered site (needs that site's read token, or the admin token). Without it: every site together.",
  },
  source: valueFilter('source', { rum: 'Real users', synthetic: 'Synthetic' } satisfies Record<RecordSource, string>),
  browser: valueFilter('browser', { chrome: 'Chrome', edge: 'Edge', chromium: 'Chromium', firefox: 'Firefox', safari: 'Safari', other: 'Other' } satisfies Record<Browser, string>),
  country: valueFilter('country'),
  evidence: { ...valueFilter('evidence', { measured: 'Observed + server-timing only' }), all: 'All evidence' },
} as const satisfies Record<string, FilterInfo>;
export type FilterName = keyof typeof FILTERS;
export const FILTER_NAMES = Object.keys(FILTERS) as FilterName[];
/** The filters that restrict a dimension's value (every filter but the site). */
export type ValueFilterName = { [K in FilterName]: (typeof FILTERS)[K] extends { dimension: DimensionName } ? K : never }[FilterName];
export const VALUE_FILTERS = FILTER_NAMES.filter((f): f is ValueFilterName => 'dimension' in FILTERS[f]);
export const filterDimension = (f: ValueFilterName): DimensionName => FILTERS[f].dimension;
