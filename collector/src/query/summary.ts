/**
 * Record counts by protocol and by TLS version over a time range, without differencing: both breakdowns
 * are built from the same joint cells (protocol × TLS version), a joint cell with fewer distinct clients
 * than the threshold counts nowhere, and `records` is the sum of the counted joint cells. So each
 * breakdown sums to `records`, and no subtraction among the answer's numbers (total − visible cells, one
 * breakdown − the other) leaves anything of a suppressed cell. A breakdown cell none of whose joint
 * cells is shown is `{suppressed: true}`; one with some shown counts only those (docs/integrity.md).
 *
 * Distinct clients as every query counts them (clients.ts: exact where the threshold decides), never
 * `uniqExact`: this route needs no token, and its range is bounded (query/routes/summary.ts).
 */
import type { ClickHouseClient } from '@clickhouse/client';
import { RAW_CLIENTS } from './clients';
import { countedRows } from './counted';
import { fewSites } from './cells';

const SITES = "uniqExactIf(site, site != '')";

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
  range: { from: number; to: number; minSites?: number },
  minClients: number,
): Promise<Summary> {
  const minSites = range.minSites ?? 1;
  const rows = await (
    await client.query({
      query: `
        SELECT protocol, ifNull(tlsVersion, 'unknown') AS version, count() AS records, ${RAW_CLIENTS} AS clients, ${SITES} AS sites
        FROM ${countedRows('ts >= fromUnixTimestamp64Milli({from:Int64}) AND ts < fromUnixTimestamp64Milli({to:Int64})', `protocol, tlsVersion, ${RAW_CLIENTS}, ${SITES}`)}
        GROUP BY protocol, version
        ORDER BY protocol, version`,
      query_params: { from: range.from, to: range.to },
      format: 'JSONEachRow',
    })
  ).json<{ protocol: string; version: string; records: number; clients: number; sites: number }>();
  const summary: Summary = { records: 0, byProtocol: {}, byTlsVersion: {} };
  const add = (cells: Record<string, SummaryCell>, key: string, records: number | null) => {
    const cell = cells[key];
    if (records === null) cells[key] = cell ?? { suppressed: true };
    else cells[key] = { records: (cell?.records ?? 0) + records };
  };
  for (const r of rows) {
    // Without a token, also the k-sites rule (cells.ts): a joint cell of fewer registered sites than MIN_SITES_PER_CELL is one site's own.
    const shown = Number(r.clients) >= minClients && !fewSites(Number(r.sites), minSites) ? Number(r.records) : null;
    add(summary.byProtocol, r.protocol, shown);
    add(summary.byTlsVersion, r.version, shown);
    summary.records += shown ?? 0;
  }
  return summary;
}
