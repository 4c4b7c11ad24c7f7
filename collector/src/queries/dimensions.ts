/**
 * The dimensions the query API groups and filters by, each as a fixed SQL expression for the raw table
 * and for the daily rollup (whose cuts hold only some of them: queries/sources.ts). Names come from this
 * whitelist only; input never reaches SQL text.
 */
export type Table = 'raw' | 'rollup';

const base = {
  protocol: { raw: 'protocol', rollup: 'protocol' },
  tlsVersion: { raw: "ifNull(tlsVersion, 'unknown')", rollup: 'tlsVersion' },
  resumed: { raw: "multiIf(resumed IS NULL, 'unknown', resumed, 'true', 'false')", rollup: 'resumed' },
  handshakeClass: { raw: 'handshakeClass', rollup: 'handshakeClass' },
  country: { raw: 'country', rollup: 'country' },
  browser: { raw: 'browser', rollup: 'browser' },
  source: { raw: 'source', rollup: 'source' },
} as const;

/** TLS 1.2 / TLS 1.3 over TCP, or HTTP/3 (always TLS 1.3, over QUIC): what a site owner can switch on. */
const stack = (t: Table) =>
  `multiIf(${base.protocol[t]} = 'h3', 'h3', ${base.tlsVersion[t]} = '1.3', 'TLS 1.3', ${base.tlsVersion[t]} = '1.2', 'TLS 1.2', 'unknown')`;
/** Full handshake, resumed session, or 0-RTT early data. */
const mode = (t: Table) =>
  `multiIf(${base.handshakeClass[t]} = '0rtt', '0-RTT', ${base.resumed[t]} = 'true', 'resumed', ${base.resumed[t]} = 'false', 'full', 'unknown')`;

export const DIMENSIONS = ['tlsVersion', 'protocol', 'handshakeClass', 'resumed', 'country', 'browser', 'source', 'stack', 'mode'] as const;
export type Dimension = (typeof DIMENSIONS)[number];

export function dimensionSql(d: Dimension, t: Table): string {
  if (d === 'stack') return stack(t);
  if (d === 'mode') return mode(t);
  return base[d][t];
}

/** Values each mix (share of records) is reported for; fixed lists, so every cell has the same keys. */
export const MIXES = {
  handshakeClass: ['full-2rtt', '1rtt', '0rtt', 'unknown'],
  protocol: ['http/1.1', 'h2', 'h3', 'other'],
  tlsVersion: ['1.2', '1.3', 'unknown'],
  mode: ['full', 'resumed', '0-RTT', 'unknown'],
} as const satisfies Partial<Record<Dimension, readonly string[]>>;
export type MixName = keyof typeof MIXES;
