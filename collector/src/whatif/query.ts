/**
 * The connections behind the what-if: one row per new connection in [from, to) of a site (or of every
 * site), with its region and whether it is a repeat — the same client token connected to the same site
 * earlier within the ticket lifetime (looking back that far before `from`, so the range's first hour
 * is not all "first visits"). Bound parameters only. At most `limit` rows: when the range holds more, a
 * sample spread over the whole range (ordered by a hash of the client and the time, so the same records
 * always give the same sample), not its last hours.
 */
import type { ClickHouseClient } from '@clickhouse/client';
import { CERT_KEY_TYPES, HANDSHAKE_CLASSES, type HandshakeClass } from '@tlsrum/shared';
import { VALUE_FILTERS } from '@tlsrum/shared/query';
import type { ValueFilters } from '../query/cells';
import { RAW_CLIENTS } from '../query/clients';
import { dimensionSql, filterDimension } from '../query/dimensions';
import type { Connection } from './model';
import { countedRows } from '../query/counted';

export interface WhatIfQuery {
  site: string | null;
  from: number;
  to: number;
  filters: ValueFilters;
  ticketLifetimeMs: number;
  limit: number;
  /** The k-sites rule (query/cells.ts): MIN_SITES_PER_CELL without a token, else 1 (off). */
  minSites?: number;
}

export interface RegionConnection extends Connection {
  country: string;
}

/** The site and the catalogue's value filters; an empty value ('*' for the site) means any. */
const SCOPE = [
  "({site:String} = '*' OR site = {site:String})",
  ...VALUE_FILTERS.map((f) => `({${f}:String} = '' OR ${dimensionSql(filterDimension(f), 'raw')} = {${f}:String})`),
].join('\n    AND ');

const CONNECTION_COLUMNS = `
    ts, country, dns, tcp, tls, connect, ttfb, transport, tlsVersion, handshakeClass, resumed, browser,
    certKeyType, certKeyBits, certChainLength, certChainBytes, ocspStapled,
    toUnixTimestamp64Milli(ts)
      - lagInFrame(toUnixTimestamp64Milli(ts), 1, toInt64(0)) OVER (PARTITION BY site, clientToken ORDER BY ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)
      <= {lifetime:Int64} AS repeat,
    cityHash64(clientToken, ts) AS sample`;

const sql = `
SELECT country, dns, tcp, tls, connect, ttfb, transport, tlsVersion, handshakeClass, resumed, repeat, browser,
  certKeyType, certKeyBits, certChainLength, certChainBytes, ocspStapled
FROM (
  SELECT${CONNECTION_COLUMNS}
  FROM ${countedRows(`ts >= fromUnixTimestamp64Milli({lookFrom:Int64}, 'UTC') AND ts < fromUnixTimestamp64Milli({to:Int64}, 'UTC') AND ${SCOPE} AND clientToken != ''`, CONNECTION_COLUMNS)}
)
WHERE ts >= fromUnixTimestamp64Milli({from:Int64}, 'UTC')
ORDER BY sample
LIMIT {limit:UInt32}`;

const clientsSql = `
SELECT country, ${RAW_CLIENTS} AS clients, count() AS connections, uniqExactIf(site, site != '') AS sites
FROM ${countedRows(`ts >= fromUnixTimestamp64Milli({from:Int64}, 'UTC') AND ts < fromUnixTimestamp64Milli({to:Int64}, 'UTC') AND ${SCOPE}`, `country, site, ${RAW_CLIENTS}`)}
GROUP BY country`;

type Row = [
  string,
  number,
  number,
  number,
  number,
  number,
  string,
  string | null,
  string,
  boolean | null,
  number | boolean,
  string,
  string,
  number | null,
  number | null,
  number | null,
  boolean | null,
];

const KEY_TYPES: readonly string[] = CERT_KEY_TYPES;

/** A connection's own crypto facts (the field split), or undefined when its record has none. */
function cryptoOf(
  keyType: string,
  keyBits: number | null,
  chainLength: number | null,
  chainBytes: number | null,
  stapled: boolean | null,
): Connection['crypto'] {
  const crypto: NonNullable<Connection['crypto']> = {};
  if (KEY_TYPES.includes(keyType))
    Object.assign(crypto, { leafKeyType: keyType, leafKeyBits: keyBits === null ? null : Number(keyBits) });
  if (chainLength !== null && chainBytes !== null)
    Object.assign(crypto, { chainLength: Number(chainLength), chainBytes: Number(chainBytes) });
  if (stapled !== null) crypto.ocspStapled = Boolean(stapled);
  return Object.keys(crypto).length ? crypto : undefined;
}

function params(q: WhatIfQuery) {
  return {
    site: q.site ?? '*',
    ...Object.fromEntries(VALUE_FILTERS.map((f) => [f, q.filters[f] ?? ''])),
    from: q.from,
    to: q.to,
    lookFrom: q.from - q.ticketLifetimeMs,
    lifetime: q.ticketLifetimeMs,
    limit: q.limit,
  };
}

export async function queryConnections(client: ClickHouseClient, q: WhatIfQuery): Promise<RegionConnection[]> {
  const rs = await client.query({ query: sql, query_params: params(q), format: 'JSONCompactEachRow' });
  const rows = await rs.json<Row>();
  return rows.map(
    ([
      country,
      dns,
      tcp,
      tls,
      connect,
      ttfb,
      transport,
      tlsVersion,
      handshakeClass,
      resumed,
      repeat,
      browser,
      keyType,
      keyBits,
      chainLength,
      chainBytes,
      stapled,
    ]) => ({
      country,
      dns: Number(dns),
      tcp: Number(tcp),
      tls: Number(tls),
      connect: Number(connect),
      ttfb: Number(ttfb),
      transport: transport === 'quic' ? 'quic' : 'tcp',
      tlsVersion: tlsVersion === '1.2' || tlsVersion === '1.3' ? tlsVersion : null,
      handshakeClass: (HANDSHAKE_CLASSES as readonly string[]).includes(handshakeClass)
        ? (handshakeClass as HandshakeClass)
        : 'unknown',
      resumed: resumed === null ? null : Boolean(resumed),
      repeat: Boolean(Number(repeat)),
      browser,
      ...(() => {
        const crypto = cryptoOf(keyType, keyBits, chainLength, chainBytes, stapled);
        return crypto ? { crypto } : {};
      })(),
    }),
  );
}

/** Distinct clients and connections per country over the whole range (for small-cell suppression). */
export async function queryRegionClients(
  client: ClickHouseClient,
  q: WhatIfQuery,
): Promise<Map<string, { clients: number; connections: number; sites: number }>> {
  const rs = await client.query({ query: clientsSql, query_params: params(q), format: 'JSONEachRow' });
  const rows = await rs.json<{ country: string; clients: number; connections: number; sites: number }>();
  return new Map(
    rows.map((r) => [
      r.country,
      { clients: Number(r.clients), connections: Number(r.connections), sites: Number(r.sites) },
    ]),
  );
}
