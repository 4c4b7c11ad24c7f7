/**
 * Record counts by protocol and by TLS version over a time range. Cells with fewer distinct clients
 * than the suppression threshold come back as `{suppressed: true}`, never with their numbers.
 */
import type { ClickHouseClient } from '@clickhouse/client';
import { RAW_CLIENTS } from './clients';

export interface SummaryCell {
  records?: number;
  suppressed?: true;
}

export interface Summary {
  records: number;
  byProtocol: Record<string, SummaryCell>;
  byTlsVersion: Record<string, SummaryCell>;
}

export async function querySummary(
  client: ClickHouseClient,
  range: { from: number; to: number },
  minClients: number,
): Promise<Summary> {
  const rows = await (
    await client.query({
      query: `
        SELECT dimension, key, count() AS records, ${RAW_CLIENTS} AS clients
        FROM handshakes
        ARRAY JOIN [('protocol', protocol), ('tlsVersion', ifNull(tlsVersion, 'unknown'))] AS pair
        WHERE ts >= fromUnixTimestamp64Milli({from:Int64}) AND ts < fromUnixTimestamp64Milli({to:Int64})
        GROUP BY pair.1 AS dimension, pair.2 AS key
        ORDER BY dimension, key`,
      query_params: range,
      format: 'JSONEachRow',
    })
  ).json<{ dimension: string; key: string; records: number; clients: number }>();
  const summary: Summary = { records: 0, byProtocol: {}, byTlsVersion: {} };
  for (const r of rows) {
    const cell: SummaryCell = Number(r.clients) >= minClients ? { records: Number(r.records) } : { suppressed: true };
    if (r.dimension === 'protocol') {
      summary.byProtocol[r.key] = cell;
      summary.records += Number(r.records);
    } else summary.byTlsVersion[r.key] = cell;
  }
  return summary;
}
