/**
 * Generates realistic handshake records inside the store with one `INSERT … SELECT … FROM numbers()`
 * per chunk: no JSON crosses the process boundary, so a million rows take seconds. Used by `pnpm demo`,
 * the dashboard's browser test and the query benchmark. Deterministic for a given seed and end time.
 *
 * The model (per record): a client (fixed country, browser, OS) on a path with the country's RTT times
 * a log-normal jitter; a site with its own TLS set-up; protocol from the site's and country's HTTP/3
 * adoption; a resumed session with the site's resumption rate. The TLS phase costs round trips as the
 * protocols do: TLS 1.2 full 2 RTT, TLS 1.2 resumed and TLS 1.3 (full or resumed) 1 RTT, 0-RTT none;
 * over QUIC there is no separate TCP handshake. Plus a little CPU time for the key exchange.
 *
 * Each record says only what its browser could know (versionSource, resumedSource below): Chromium over
 * TCP knows the version only from a site's Server-Timing or its profile, so the unknown shares are those
 * a real Chromium-majority population shows.
 *
 * Crypto: each site has a certificate key, chain and stapling, and offers the post-quantum
 * hybrid group or not (profiles.ts). The server's signature costs CPU time by key (RSA-4096 ≈ 6 ms, RSA-2048
 * ≈ 1 ms, ECDSA ≈ 0.1 ms), the chain ≈ 0.15 ms per kB, the hybrid group's larger key share ≈ 0.3 ms plus a
 * split ClientHello on 5 % of connections (+ ½ RTT), and an unstapled certificate sends 5 % of Firefox's
 * handshakes to an OCSP responder (+ 1 RTT). Crypto facts as each browser could know them: Firefox and the
 * synthetic runner observe them (Firefox no stapling fact); a Chromium-family record of a registered site
 * carries its latest probe's (cryptoSource 'probe'); other records none.
 */
import type { ClickHouseClient } from '@clickhouse/client';
import type { ColumnName } from '../ingest/columns';
import { BULK_INSERT_SETTINGS } from '../platform/store/clients';
import { COUNTRIES, DEMO_AGENT, SITES, type CountryProfile, type DemoSite } from './profiles';

export { SITES, type DemoSite };

export interface DemoOptions {
  records: number;
  days?: number;
  /** End of the generated range, epoch ms (default: now). */
  end?: number;
  seed?: number;
  countries?: CountryProfile[];
  sites?: DemoSite[];
  /**
   * Records per visit (default 1): a client's burst of connections within five minutes, sent as one batch,
   * as the extension flushes its queue and the beacon sends a page view's connections. A visit of the
   * extension or the synthetic runner spreads over up to three sites, so the same client meets the same site
   * again (the what-if's repeat connections); a visit of a site's beacon stays on that site. Clients then do
   * about one visit a day. With 1, every record is its own visit and batch, of one of `records / 15` clients
   * whose tokens rotate daily, so nearly every record comes from its own client token: the most clients, and
   * the most bytes, a number of records can have.
   */
  visitRecords?: number;
  /** Rows per INSERT (memory stays bounded). */
  chunk?: number;
  /**
   * The table written (default `handshakes`): a bench's staging copy of it (`CREATE TABLE … AS handshakes`),
   * whose rows it then rolls up alone. A name from code, never from input.
   */
  table?: string;
  onProgress?: (done: number, total: number) => void;
}

const cumulative = (ws: number[]) => {
  const total = ws.reduce((a, b) => a + b, 0);
  let acc = 0;
  return ws.map((w) => (acc += w / total));
};

/** A uniform number in [0, 1) from the seed, the row (or the client) and a salt: fixed SQL, no input. */
const u = (salt: number, of = 'number') => `(cityHash64({seed:UInt64}, ${of}, ${salt}) % 1000003) / 1000003.0`;
/** A standard normal from two uniforms (Box–Muller). */
const normal = (a: number, b: number, of = 'number') =>
  `(sqrt(-2 * log(${u(a, of)} + 1e-9)) * cos(2 * pi() * ${u(b, of)}))`;

/**
 * The stored value of each column the demo fills, as SQL over the generated row (the subqueries below).
 * Keyed by the column registry's names, so a column that is renamed or dropped fails the type check;
 * a column added to the registry and not listed here gets its table default in demo data.
 */
const DEMO_VALUES = {
  ts: 'fromUnixTimestamp64Milli(tsMs)',
  receivedAt: "toDateTime(intDiv(tsMs, 1000), 'UTC')",
  batchId: 'batch',
  site: 'site',
  country: 'country',
  entryType: `if(${u(14)} < 0.25, 'navigation', 'resource')`,
  protocol: 'protocol',
  transport: "if(protocol = 'h3', 'quic', 'tcp')",
  tlsVersion: 'if(versionKnown, tlsVersion, NULL)',
  tlsVersionSource: 'versionSource',
  resumed: "if(resumedSource = 'unknown', NULL, resumedTrue)",
  resumedSource: 'resumedSource',
  handshakeClass: 'cls',
  dns: 'round(least(dnsMs, 60000), 1)',
  tcp: 'round(least(tcpMs, 60000), 1)',
  tls: 'round(least(tlsMs, 60000), 1)',
  connect: 'round(least(tcpMs + tlsMs, 60000), 1)',
  ttfb: 'round(least(ttfbMs, 60000), 1)',
  cipher: `multiIf(NOT (observedCrypto OR probeCrypto), '', tlsVersion = '1.3', if(os = 'android' AND ${u(15)} < 0.4, 'TLS_CHACHA20_POLY1305_SHA256', 'TLS_AES_128_GCM_SHA256'), keyType = 'rsa', 'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', 'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256')`,
  // Firefox reports no group on a TLS 1.2 session resumed by ticket; the probe's is the site's own choice.
  keyExchangeGroup:
    "multiIf(observedCrypto, if(tlsVersion = '1.2' AND resumedTrue, '', if(pqUsed, 'X25519MLKEM768', 'X25519')), probeCrypto, if(sitePq, 'X25519MLKEM768', 'X25519'), '')",
  signatureScheme:
    "if(observedCrypto, if(keyType = 'rsa', 'rsa_pss_rsae_sha256', concat('ecdsa_secp', toString(keyBits), 'r1_sha', toString(keyBits))), '')",
  certChainLength: 'if(observedCrypto OR probeCrypto, toNullable(toUInt8(chainLen)), NULL)',
  certKeyType: "if(observedCrypto OR probeCrypto, keyType, '')",
  certKeyBits: 'if(observedCrypto OR probeCrypto, toNullable(toUInt16(keyBits)), NULL)',
  certChainBytes: 'if(observedCrypto OR probeCrypto, toNullable(toUInt32(chainBytes)), NULL)',
  ocspStapled: "if((observedCrypto AND source = 'synthetic') OR probeCrypto, toNullable(stapled), NULL)",
  ech: "if(browser = 'firefox' AND observedCrypto, toNullable(false), NULL)",
  cryptoSource: "multiIf(observedCrypto, 'observed', probeCrypto, 'probe', '')",
  browser: 'browser',
  browserMajor: 'browserMajor',
  os: 'os',
  effectiveType: "if(browser = 'firefox', '', if(rtt > 600, '3g', '4g'))",
  rttHint: "if(browser = 'firefox', NULL, toNullable(toUInt16(least(3000, round(rtt / 25) * 25))))",
  source: 'source',
  agentName: '{agentName:String}',
  agentVersion: '{agentVersion:String}',
  clientToken: 'clientToken',
  // A registered site's synthetic records are its owner's runs, as `pnpm synth --token` sends them: the site's
  // view with source=synthetic shows them without the people threshold.
  owner: "if(source = 'synthetic' AND site != '', 1, 0)",
} satisfies { [K in ColumnName]?: string };

/**
 * The insert for the columns the table has: a data folder of an older schema (the store's upgrade tests fill
 * one before migrating it) gets the columns it knows, the rest keep their defaults until the migration.
 */
const insertSql = (table: string, columns: ReadonlySet<string>, visits: boolean) => {
  const values = Object.entries(DEMO_VALUES).filter(([c]) => columns.has(c));
  // What a visit shares (its client, time, source and batch) is drawn from the visit's number, the rest from the
  // record's; with one record per visit both are the record's number.
  const V = visits ? 'v' : 'number';
  const siteIndex = (of: string) => `arrayFirstIndex(w -> w >= ${u(3, of)}, {siteCum:Array(Float64)})`;
  return `
INSERT INTO ${table} (${values.map(([c]) => c).join(', ')})
SELECT
  ${values.map(([, v]) => v).join(',\n  ')}
FROM
(
  SELECT *,
    -- What the TLS phase costs before the request can go, in round trips, plus key-exchange CPU time.
    multiIf(cls = '0rtt', 0, cls = 'full-2rtt', 2, 1) AS rtts,
    if(protocol = 'h3', 0, rtt * (1 + 0.05 * abs(${normal(16, 17)})) + 0.3) AS tcpMs,
    rtts * rtt * (1 + 0.05 * abs(${normal(18, 19)})) + if(resumedTrue, 0.6, 3.5) * (0.6 + ${u(20)}) + cryptoMs AS tlsMs,
    if(${u(21)} < 0.55, 0, 2 + 0.4 * baseRtt * exp(0.6 * ${normal(22, 23)})) AS dnsMs,
    rtt + 35 * exp(0.7 * ${normal(24, 25)}) AS ttfbMs
  FROM
  (
    SELECT *,
      multiIf(classUnknown, 'unknown',
              resumedTrue AND tlsVersion = '1.3' AND ${u(26)} < if(protocol = 'h3', 0.35, 0.06), '0rtt',
              tlsVersion = '1.2' AND NOT resumedTrue, 'full-2rtt', '1rtt') AS cls,
      -- What each browser can know (shared/README.md, "Classification"): h3 implies TLS 1.3; the runner and
      -- Firefox observe the version; a site's Server-Timing states it; Chromium over TCP has only the
      -- registered site's profile (none where the site's edges disagree, none for unregistered sites) and
      -- two round trips (a full TLS 1.2 handshake).
      -- Early data exists only in TLS 1.3: a 0-RTT connection implies it, as the classifier says.
      multiIf(protocol = 'h3', 'implied', source = 'synthetic', 'observed', stReported, 'server-timing', browser = 'firefox' AND source = 'rum', 'observed',
              cls = '0rtt', 'implied', siteProfiled, 'site-profile', cls = 'full-2rtt', 'inferred', 'unknown') AS versionSource,
      versionSource != 'unknown' AS versionKnown,
      -- Resumption: observed by the runner, by Firefox on TLS 1.2 (no key exchange group); Server-Timing;
      -- early data implies it; two round trips infer a full one; with a site profile the tracked history
      -- tells nearly always (a recent handshake, or none within the ticket lifetime); without one only a
      -- recent handshake does (a likely resumption), and a first contact stays unknown.
      multiIf(source = 'synthetic', 'observed', stReported, 'server-timing', browser = 'firefox' AND source = 'rum' AND tlsVersion = '1.2' AND protocol != 'h3', 'observed',
              cls = '0rtt', 'implied', cls = 'full-2rtt', 'inferred',
              siteProfiled AND ${u(27)} < 0.92, 'inferred', resumedTrue AND ${u(27)} < 0.8, 'inferred', 'unknown') AS resumedSource,
      source = 'synthetic' OR (browser = 'firefox' AND source = 'rum') AS observedCrypto,
      NOT observedCrypto AND site != '' AS probeCrypto,
      sitePq AND tlsVersion = '1.3' AND browserMajor >= 131 AS pqUsed,
      -- A full handshake signs (by key) and carries the chain; a resumed one neither.
      if(resumedTrue, 0,
         multiIf(keyType = 'ecdsa', 0.1, keyBits >= 4096, 6, 1) * (0.8 + 0.4 * ${u(34)}) + 0.15 * chainBytes / 1000
         + if(NOT stapled AND browser = 'firefox' AND ${u(35)} < 0.05, rtt, 0))
        + if(pqUsed, 0.3 + if(${u(36)} < 0.05, rtt / 2, 0), 0) AS cryptoMs
    FROM
    (
      SELECT *,
        multiIf(${u(5)} < least(0.9, countryH3 * siteH3 * (0.8 + 0.4 * dayPos)), 'h3', ${u(5)} > 0.88, 'http/1.1', 'h2') AS protocol,
        if(protocol = 'h3' OR ${u(6)} < siteTls13 * if(protocol = 'http/1.1', 0.7, 1), '1.3', '1.2') AS tlsVersion,
        protocol != 'h3' AND ${u(7)} < 0.04 AS classUnknown,
        ${u(8)} < siteResumption AS resumedTrue,
        ${u(10)} < siteServerTiming AS stReported,
        baseRtt * exp(0.35 * ${normal(1, 2)}) + 1.5 AS rtt
      FROM
      (
        SELECT number,
          intDiv(number, {visitRecords:UInt64}) AS v,
          cityHash64({seed:UInt64}, ${V}, 0) % {clients:UInt64} AS c,
          ${visits ? `reinterpretAsUUID(concat(reinterpretAsFixedString(cityHash64({seed:UInt64}, v, 40)), reinterpretAsFixedString(cityHash64({seed:UInt64}, v, 41))))` : 'generateUUIDv4(number)'} AS batch,
          arrayFirstIndex(w -> w >= ${u(30, 'c')}, {countryCum:Array(Float64)}) AS ci,
          {countries:Array(String)}[ci] AS country,
          {countryRtt:Array(Float64)}[ci] AS baseRtt,
          {countryH3:Array(Float64)}[ci] AS countryH3,
          ${
            visits
              ? `-- A visit of a site's beacon stays on its site; one of a browser or the runner goes to up to three.
          ${siteIndex('cityHash64(v, 0)')} AS si0,
          if(source = 'page', si0, ${siteIndex('cityHash64(v, number % 3)')}) AS si,`
              : `${siteIndex('number')} AS si,`
          }
          {sites:Array(String)}[si] AS site,
          {siteTls13:Array(Float64)}[si] AS siteTls13,
          {siteH3:Array(Float64)}[si] AS siteH3,
          {siteServerTiming:Array(Float64)}[si] AS siteServerTiming,
          {siteProfiled:Array(UInt8)}[si] = 1 AS siteProfiled,
          {siteKeyType:Array(String)}[si] AS keyType,
          {siteKeyBits:Array(UInt16)}[si] AS keyBits,
          {siteChain:Array(UInt8)}[si] AS chainLen,
          {siteChainBytes:Array(UInt32)}[si] AS chainBytes,
          {siteOcsp:Array(UInt8)}[si] = 1 AS stapled,
          {sitePq:Array(UInt8)}[si] = 1 AS sitePq,
          if(tsMs >= {siteChangeAt:Array(Int64)}[si], {siteResumption:Array(Float64)}[si], {siteResumptionBefore:Array(Float64)}[si]) AS siteResumption,
          multiIf(${u(31, 'c')} < 0.62, 'chrome', ${u(31, 'c')} < 0.75, 'edge', ${u(31, 'c')} < 0.93, 'firefox', 'chromium') AS browser,
          toUInt16(if(browser = 'firefox', 128 + floor(${u(32, 'c')} * 18), 128 + floor(${u(32, 'c')} * 15))) AS browserMajor,
          multiIf(${u(33, 'c')} < 0.45, 'windows', ${u(33, 'c')} < 0.6, 'macos', ${u(33, 'c')} < 0.68, 'linux', ${u(33, 'c')} < 0.95, 'android', 'chromeos') AS os,
          -- A registered site's own beacon reports a share of its visitors' connections (source page).
          multiIf(${u(4, V)} < 0.06, 'synthetic', ${visits ? '{sites:Array(String)}[si0]' : 'site'} != '' AND ${u(37, V)} < 0.45, 'page', 'rum') AS source,
          -- Time: uniform over the days, denser in the (UTC) afternoon and evening; a visit's records within five minutes.
          floor(${u(11, V)} * {days:UInt32}) AS day,
          ${u(12, V)} AS hu,
          hu - 0.12 * sin(2 * pi() * hu) AS dayFrac,
          least({end:Int64} - 1, {start:Int64} + toInt64(day * 86400000 + floor(greatest(0, least(0.99999, dayFrac)) * 86400000))${visits ? ` + toInt64(floor(${u(38)} * 300000))` : ''}) AS tsMs,
          (tsMs - {start:Int64}) / ({end:Int64} - {start:Int64}) AS dayPos,
          -- The client token rotates daily, as the extension's does.
          concat('demo', hex(cityHash64({seed:UInt64}, c, intDiv(tsMs, 86400000)))) AS clientToken
        FROM numbers({first:UInt64}, {count:UInt64})
      )
    )
  )
)`;
};

/**
 * A registered site whose edges all speak the same highest version has a profile that claims it; one
 * whose edges differ (some TCP connections on TLS 1.2, some on 1.3) has a disputed profile, which claims
 * nothing; an unregistered site has none.
 */
export function hasUnanimousProfile(s: DemoSite): boolean {
  return s.hostname !== '' && (s.tls13 === 0 || s.tls13 === 1);
}

export async function generateDemoData(client: ClickHouseClient, opts: DemoOptions): Promise<number> {
  const days = opts.days ?? 30;
  const end = opts.end ?? Date.now();
  const start = end - days * 86_400_000;
  const countries = opts.countries ?? COUNTRIES;
  const sites = opts.sites ?? SITES;
  const visitRecords = opts.visitRecords ?? 1;
  if (!Number.isInteger(visitRecords) || visitRecords < 1)
    throw new RangeError(`visitRecords must be a whole number ≥ 1: ${visitRecords}`);
  // Whole visits per chunk, so that no visit is cut in two inserts.
  const chunk = Math.ceil((opts.chunk ?? 250_000) / visitRecords) * visitRecords;
  const table = opts.table ?? 'handshakes';
  if (!/^\w+$/.test(table)) throw new RangeError(`not a table name: ${table}`);
  const base = {
    seed: opts.seed ?? 1,
    visitRecords,
    // One record a visit: about 15 records per client over the range (a client's token also rotates daily).
    // Longer visits: about one visit per client a day.
    clients: Math.max(50, Math.round(opts.records / (visitRecords > 1 ? visitRecords * days : 15))),
    days,
    start,
    end,
    countries: countries.map((c) => c.code),
    countryCum: cumulative(countries.map((c) => c.weight)),
    countryRtt: countries.map((c) => c.rttMs),
    countryH3: countries.map((c) => c.h3),
    sites: sites.map((s) => s.hostname),
    siteCum: cumulative(sites.map((s) => s.weight)),
    siteTls13: sites.map((s) => s.tls13),
    siteH3: sites.map((s) => s.h3),
    siteServerTiming: sites.map((s) => s.serverTiming),
    siteProfiled: sites.map((s) => (hasUnanimousProfile(s) ? 1 : 0)),
    siteResumption: sites.map((s) => s.resumption),
    siteKeyType: sites.map((s) => s.crypto.key),
    siteKeyBits: sites.map((s) => s.crypto.bits),
    siteChain: sites.map((s) => s.crypto.chain),
    siteChainBytes: sites.map((s) => s.crypto.chainBytes),
    siteOcsp: sites.map((s) => (s.crypto.ocspStapled ? 1 : 0)),
    sitePq: sites.map((s) => (s.crypto.pq ? 1 : 0)),
    // A site without a change has the same share before (its change time is the start).
    siteChangeAt: sites.map((s) => (s.resumptionChange ? end - s.resumptionChange.daysAgo * 86_400_000 : start)),
    siteResumptionBefore: sites.map((s) => s.resumptionChange?.before ?? s.resumption),
    agentName: DEMO_AGENT.name,
    agentVersion: DEMO_AGENT.version,
  };
  const columns = await (
    await client.query({
      query: 'SELECT name FROM system.columns WHERE database = currentDatabase() AND table = {table:String}',
      query_params: { table },
      format: 'JSONEachRow',
    })
  ).json<{ name: string }>();
  const sql = insertSql(table, new Set(columns.map((c) => c.name)), visitRecords > 1);
  for (let first = 0; first < opts.records; first += chunk) {
    const count = Math.min(chunk, opts.records - first);
    await client.command({
      query: sql,
      query_params: { ...base, first, count },
      clickhouse_settings: BULK_INSERT_SETTINGS,
    });
    opts.onProgress?.(first + count, opts.records);
  }
  return opts.records;
}

/** Whether demo records are already stored (the demo loads its data on the first run only). */
export async function hasDemoData(client: ClickHouseClient): Promise<boolean> {
  const rows = await (
    await client.query({
      query: 'SELECT count() AS n FROM (SELECT 1 FROM handshakes WHERE agentName = {agent:String} LIMIT 1)',
      query_params: { agent: DEMO_AGENT.name },
      format: 'JSONEachRow',
    })
  ).json<{ n: number }>();
  return Number(rows[0]?.n) > 0;
}
