/**
 * The connections behind the what-if: one row per new connection in [from, to) of a site (or of every
 * site), with its region and whether it is a repeat — the same client token connected to the same site
 * earlier within the ticket lifetime (looking back that far before `from`, so the range's first hour
 * is not all "first visits"). Bound parameters only. At most `limit` rows: when the range holds more, a
 * sample spread over the whole range — of clients (a hash of the token), then of their connections (a hash
 * of the token and the time), so the same records always give the same sample — not its last hours. A
 * sample of at most CLIENT_SAMPLE_SHARE of the clients is read from the table that keeps those clients'
 * records apart (migration 0026), sorted by the same hash: the same rows, without reading the range's.
 */
import { availableParallelism } from 'node:os';
import type { ClickHouseClient } from '@clickhouse/client';
import { CERT_KEY_TYPES, HANDSHAKE_CLASSES, type HandshakeClass } from '@tlsrum/shared';
import { VALUE_FILTERS } from '@tlsrum/shared/query';
import { buildCellSql, MAX_CELLS, type ValueFilters } from '../query/cells';
import { dimensionSql, filterDimension } from '../query/dimensions';
import type { Connection } from './model';
import { countedRows } from '../query/counted';
import { answerText } from '../platform/store/answer-text';
import { CLIENT_SAMPLE_TABLE } from '../platform/store/migrate';
import { compactRows, runBetweenRequests } from '../platform/work';
import { heavyQuery, heavyWhen } from '../platform/store/query-pool';
import { RAW } from '../query/sources';

export { CLIENT_SAMPLE_TABLE };

/**
 * The store's threads the connections' read may use: half the machine's cores. The embedded store shares
 * those cores with the light readers of the dashboard; with all of them, the what-if of 100 000 connections
 * over 30 days took no less time (about 2 s here) but made a light read beside it 1.75× slower at the median,
 * with half 1.3×.
 */
const WHATIF_READ_THREADS = Math.max(1, Math.floor(availableParallelism() / 2));

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
  /** The client, as a hash of its token: counts the distinct clients a region's figures come from. */
  client: number;
}

/** The site and the catalogue's value filters; an empty value ('*' for the site) means any. */
const SCOPE = [
  "({site:String} = '*' OR site = {site:String})",
  ...VALUE_FILTERS.map((f) => `({${f}:String} = '' OR ${dimensionSql(filterDimension(f), 'raw')} = {${f}:String})`),
].join('\n    AND ');

/**
 * Each connection's columns, and the client as a hash of its token. Whether it repeats is looked up in the
 * repeats' keys (`repeatKeys`), not worked out beside these columns: a window function carries every column
 * it is given through its sort. Over the raw table (the demo's week: 70 000 rows of sampled clients) the
 * read took 240–250 ms at the median instead of 280–340 (the same rows; from the client sample's table,
 * sorted for the window, no change).
 */
const connectionColumns = (repeats: string) => `
    ts, country, dns, tcp, tls, connect, ttfb, transport, tlsVersion, handshakeClass, resumed, browser,
    certKeyType, certKeyBits, certChainLength, certChainBytes, ocspStapled,
    site != '' AND (site, cityHash64(clientToken), ts) GLOBAL IN (${repeats}
    ) AS repeat,
    cityHash64(clientToken, ts) AS sample,
    toUInt32(bitShiftRight(cityHash64(clientToken), 32)) AS client`;

/**
 * The (site, token hash, time) of each connection that repeats its client's previous one to the same site
 * within the ticket lifetime: the previous distinct time of that site and token, at most the lifetime
 * before. Strictly earlier: connections a client opens in the same millisecond (a page's parallel
 * connections) are neither one the other's repeat — neither could hold a ticket from the other — and the
 * answer does not depend on the order the store reads ties in. A connection to a site that is not
 * registered is never a repeat: its hostname is not stored (`site` is empty), so two such connections of
 * one client may be to two different hosts. Partitioned by the token's 64-bit hash, not the token: the same
 * partitions (two of a site's tokens collide with a chance of about one in forty million at a million
 * clients; `client` is already a 32-bit hash of it), sorted as numbers instead of strings. Looked up with
 * GLOBAL IN: on a cluster the keys are worked out once over the Distributed table and sent to the shards (a
 * plain IN reading a Distributed table inside a distributed query is refused); on one node it is an IN. The
 * subquery is written inside the IN, not named in a WITH: every server the cluster layout supports (23.12 on)
 * plans it there, with or without the new analyzer.
 */
const repeatKeys = (rows: string) => `
  SELECT site, h, ts FROM (
    SELECT site, cityHash64(clientToken) AS h, ts, toUnixTimestamp64Milli(ts) AS ms,
      ms - max(ms) OVER (PARTITION BY site, h ORDER BY ms RANGE BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS gap
    FROM ${rows} WHERE site != ''
  )
  WHERE gap <= {lifetime:Int64}`;

/**
 * The clients sampled: a client token is in when the hash of the token falls in the first `share` of its
 * range, with `share` = SAMPLE_HEADROOM × limit / the range's connections (all of them when that is 1 or
 * more). All of a sampled client's connections are read, so its repeats are exact, and only theirs go
 * through the repeats' window: the work grows with `limit`. The raw table is read whole over the range to hash
 * its tokens; a share of at most CLIENT_SAMPLE_SHARE reads the client sample's table instead, whose sort key
 * (site, the token's hash) holds the sampled clients first: the read grows with `limit`, not with the records
 * stored. `countries`, when not empty, keeps only those regions (the report reads small regions again whole:
 * report.ts). It is asked as `country IN`, a set the store builds once: `has(array, country)` tested each row
 * against the array, and the second read of a month of 10 M records under a browser filter took 4–5 s
 * instead of 1.4–1.8 s, the same rows.
 */
const SAMPLED_CLIENT = `cityHash64(clientToken) / 18446744073709551616.0 <= {share:Float64}
    AND (empty({countries:Array(String)}) OR country IN {countries:Array(String)})`;

/** How many more connections than `limit` the client sample aims at, so that it rarely falls short of it. */
export const SAMPLE_HEADROOM = 1.25;

/**
 * The clients the client sample's table keeps (migration 0026: the same expression and bound): a share at or
 * under it selects a subset of them, so that table holds every row the raw table would give.
 */
export const CLIENT_SAMPLE_SHARE = 0.0625;
/** The condition on its table's sort key that bounds a share's clients (a superset of SAMPLED_CLIENT's). */
const SAMPLE_KEY_BOUND = 'clientSample <= {sampleBound:UInt64}';

/**
 * The connections' SQL over the raw table or the client sample's: the same statement, the same rows. The
 * repeats' keys come from the same rows (the same clients, range with its look-back, scope and filters).
 */
export function connectionsSql(table: 'handshakes' | typeof CLIENT_SAMPLE_TABLE): string {
  const inRange = `ts >= fromUnixTimestamp64Milli({lookFrom:Int64}, 'UTC') AND ts < fromUnixTimestamp64Milli({to:Int64}, 'UTC')`;
  const keyBound = table === CLIENT_SAMPLE_TABLE ? `${SAMPLE_KEY_BOUND} AND ` : '';
  const where = `${keyBound}${inRange} AND ${SCOPE} AND clientToken != '' AND ${SAMPLED_CLIENT}`;
  const columns = connectionColumns(repeatKeys(countedRows(where, 'site clientToken', table)));
  return `
SELECT country, dns, tcp, tls, connect, ttfb, transport, tlsVersion, handshakeClass, resumed, repeat, browser,
  certKeyType, certKeyBits, certChainLength, certChainBytes, ocspStapled, client
FROM (
  SELECT${columns}
  FROM ${countedRows(where, columns, table)}
)
WHERE ts >= fromUnixTimestamp64Milli({from:Int64}, 'UTC')
ORDER BY sample
LIMIT {limit:UInt32}`;
}

const SQL = { handshakes: connectionsSql('handshakes'), sample: connectionsSql(CLIENT_SAMPLE_TABLE) };

/** The table a share of the clients is read from: the client sample's when it holds them all. */
export const connectionsTable = (share: number): 'handshakes' | typeof CLIENT_SAMPLE_TABLE =>
  share <= CLIENT_SAMPLE_SHARE ? CLIENT_SAMPLE_TABLE : 'handshakes';

/**
 * The largest token hash a share can select, with a margin for the hash's rounding to Float64 in
 * `hash / 2^64` (53 bits: at most 2^10 off for a 64-bit hash), so the bound on the sort key never leaves out
 * a row the exact condition keeps; that condition still decides.
 */
export function sampleBound(share: number): string {
  const bound = BigInt(Math.ceil(Math.min(1, Math.max(0, share)) * 2 ** 64)) + 4096n;
  const max = 2n ** 64n - 1n;
  return String(bound > max ? max : bound);
}

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
  number,
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

/** The connections query's bound parameters: the scope, the range and the share of clients that `limit` of `connections` needs. */
export function connectionsParams(q: WhatIfQuery, connections: number, countries: readonly string[] = []) {
  const share = (SAMPLE_HEADROOM * q.limit) / Math.max(1, connections);
  return {
    countries,
    site: q.site ?? '*',
    ...Object.fromEntries(VALUE_FILTERS.map((f) => [f, q.filters[f] ?? ''])),
    from: q.from,
    to: q.to,
    lookFrom: q.from - q.ticketLifetimeMs,
    lifetime: q.ticketLifetimeMs,
    limit: q.limit,
    share,
    sampleBound: sampleBound(share),
  };
}

/**
 * The connections analysed: of a sample of clients when the range holds more than `limit` (`connections` of
 * them). With `countries`, only those regions' (`connections` then counts theirs alone).
 */
export async function queryConnections(
  client: ClickHouseClient,
  q: WhatIfQuery,
  connections: number,
  countries: readonly string[] = [],
): Promise<RegionConnection[]> {
  const p = connectionsParams(q, connections, countries);
  // Tens of thousands of rows, from the client sample or the raw table: a heavy read (query-pool.ts), which
  // takes turns with other heavy ones and never takes the dashboard's light questions' last slot.
  const rs = await heavyQuery.run(true, () =>
    client.query({
      query: connectionsTable(p.share) === CLIENT_SAMPLE_TABLE ? SQL.sample : SQL.handshakes,
      query_params: p,
      format: 'JSONCompactEachRow',
      clickhouse_settings: { max_threads: WHATIF_READ_THREADS },
    }),
  );
  // Up to `limit` rows: read as text and turned into connections a slice at a time, pausing for the
  // collector's other requests (platform/work.ts), instead of all at once.
  return runBetweenRequests(compactRows(await answerText(rs), (values) => connectionOf(values as Row)));
}

function connectionOf([
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
  clientHash,
]: Row): RegionConnection {
  const crypto = cryptoOf(keyType, keyBits, chainLength, chainBytes, stapled);
  return {
    country,
    client: Number(clientHash),
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
    crypto,
  };
}

export interface RegionCounts {
  clients: number;
  connections: number;
  /** Registered sites behind the region's connections; 0 when the k-sites rule is off (it is not counted then). */
  sites: number;
}

/**
 * Distinct clients, connections and (without a token) registered sites per country over the whole range,
 * for small-cell suppression and the sample's size: the map's cells (query/cells.ts), so from the rollup
 * whenever it holds the range and the filters, as the map's own counts are, and from the raw table else.
 */
export async function queryRegionClients(
  client: ClickHouseClient,
  q: WhatIfQuery,
  minClients: number,
): Promise<Map<string, RegionCounts>> {
  const {
    sql: regionSql,
    params: regionParams,
    readTable,
  } = buildCellSql(
    {
      table: 'rollup',
      // Whole-range cells count the rows within the cap marked at ingest (query/counted.ts): no read-time cap.
      filters: { from: q.from, to: q.to, site: q.site, clientCap: 0, minSites: q.minSites, ...q.filters },
      dimensions: ['country'],
      metrics: 'counts',
      // The map's own limit, above the number of countries: no region is left out of the counts.
      limit: MAX_CELLS.map,
    },
    minClients,
  );
  const rows = await heavyWhen(readTable === RAW, async () =>
    (await client.query({ query: regionSql, query_params: regionParams, format: 'JSONEachRow' })).json<{
      d_country: string;
      n_records: number;
      n_clients: number;
      n_sites?: number;
    }>(),
  );
  return new Map(
    rows
      .filter((r) => Number(r.n_records) > 0)
      .map((r) => [
        r.d_country,
        { clients: Number(r.n_clients), connections: Number(r.n_records), sites: Number(r.n_sites ?? 0) },
      ]),
  );
}
