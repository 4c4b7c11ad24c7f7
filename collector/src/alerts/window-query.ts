/**
 * One site, two time windows (the current one and the same window a week earlier): the counts and
 * percentiles every alert check needs, in one query with bound parameters only. The pooled 75th
 * percentiles (both windows together) feed the quantile test in stats.ts.
 */
import type { ClickHouseClient } from '@clickhouse/client';
import { RAW_CLIENTS } from '../query/clients';
import { cappedPerCell } from '../query/counted';

export interface WindowStats {
  records: number;
  clients: number;
  /** Records whose resumption state is known, and how many of those were resumed. */
  resumedKnown: number;
  resumed: number;
  /** Records whose TLS version is known, and how many were TLS 1.3. */
  versionKnown: number;
  tls13: number;
  h3: number;
  tlsP75: number;
  connectP75: number;
  /** Records above the pooled p75 of both windows. */
  tlsAbovePooled: number;
  connectAbovePooled: number;
}

export interface WindowPair {
  current: WindowStats;
  baseline: WindowStats;
  pooledTlsP75: number;
  pooledConnectP75: number;
}

export interface WindowPairQuery {
  site: string;
  /** epoch ms, [from, to) */
  current: { from: number; to: number };
  baseline: { from: number; to: number };
  /** Restrict to one record source ('rum', 'synthetic'), or null for every source. */
  source: string | null;
  /** Records of one client token counted per window and day at most (query/counted.ts; 0: no cap). */
  clientCap: number;
}

const EMPTY: WindowStats = {
  records: 0,
  clients: 0,
  resumedKnown: 0,
  resumed: 0,
  versionKnown: 0,
  tls13: 0,
  h3: 0,
  tlsP75: 0,
  connectP75: 0,
  tlsAbovePooled: 0,
  connectAbovePooled: 0,
};

/** The rows of both windows a check counts: plausible, at most `cap` per client, day and window. */
const counted = (cap: number) =>
  cappedPerCell(
    "site = {site:String} AND ({source:String} = '' OR source = {source:String}) AND ((ts >= curFrom AND ts < curTo) OR (ts >= baseFrom AND ts < baseTo))",
    ['ts >= curFrom'],
    cap,
    // Every column the checks below read.
    `ts, tls, connect, resumed, tlsVersion, protocol, ${RAW_CLIENTS}`,
  );

const sql = (cap: number) => `
WITH
  fromUnixTimestamp64Milli({curFrom:Int64}, 'UTC') AS curFrom,
  fromUnixTimestamp64Milli({curTo:Int64}, 'UTC') AS curTo,
  fromUnixTimestamp64Milli({baseFrom:Int64}, 'UTC') AS baseFrom,
  fromUnixTimestamp64Milli({baseTo:Int64}, 'UTC') AS baseTo,
  pooled AS (
    SELECT quantileExact(0.75)(tls) AS qTls, quantileExact(0.75)(connect) AS qConnect
    FROM ${counted(cap)}
  )
SELECT
  if(ts >= curFrom, 'current', 'baseline') AS window,
  count() AS records,
  ${RAW_CLIENTS} AS clients,
  countIf(resumed IS NOT NULL) AS resumedKnown,
  countIf(resumed = true) AS resumedYes, -- an alias "resumed" would shadow the column
  countIf(tlsVersion IS NOT NULL) AS versionKnown,
  countIf(tlsVersion = '1.3') AS tls13,
  countIf(protocol = 'h3') AS h3,
  quantileExact(0.75)(tls) AS tlsP75,
  quantileExact(0.75)(connect) AS connectP75,
  countIf(tls > (SELECT qTls FROM pooled)) AS tlsAbovePooled,
  countIf(connect > (SELECT qConnect FROM pooled)) AS connectAbovePooled,
  any((SELECT qTls FROM pooled)) AS pooledTlsP75,
  any((SELECT qConnect FROM pooled)) AS pooledConnectP75
FROM ${counted(cap)}
GROUP BY window`;

type Row = Record<keyof WindowStats | 'resumedYes', number | string> & {
  window: 'current' | 'baseline';
  pooledTlsP75: number;
  pooledConnectP75: number;
};

export async function queryWindowPair(client: ClickHouseClient, q: WindowPairQuery): Promise<WindowPair> {
  if (q.current.from < q.baseline.to)
    throw new RangeError('the baseline window must end before the current one starts');
  const rs = await client.query({
    query: sql(q.clientCap),
    query_params: {
      site: q.site,
      source: q.source ?? '',
      curFrom: q.current.from,
      curTo: q.current.to,
      baseFrom: q.baseline.from,
      baseTo: q.baseline.to,
    },
    format: 'JSONEachRow',
  });
  const rows = await rs.json<Row>();
  const pick = (w: 'current' | 'baseline'): WindowStats => {
    const r = rows.find((x) => x.window === w);
    if (!r) return { ...EMPTY };
    const out = { ...EMPTY };
    for (const k of Object.keys(EMPTY) as (keyof WindowStats)[]) out[k] = Number(k === 'resumed' ? r.resumedYes : r[k]);
    return out;
  };
  const any = rows[0];
  return {
    current: pick('current'),
    baseline: pick('baseline'),
    pooledTlsP75: any ? Number(any.pooledTlsP75) : 0,
    pooledConnectP75: any ? Number(any.pooledConnectP75) : 0,
  };
}
