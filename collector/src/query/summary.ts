/**
 * Record counts by protocol and by TLS version over a time range, without differencing: both breakdowns
 * are built from the same joint cells (protocol × TLS version), a joint cell with fewer distinct clients
 * than the threshold counts nowhere, and `records` is the sum of the counted joint cells. So each
 * breakdown sums to `records`, and no subtraction among the answer's numbers (total − visible cells, one
 * breakdown − the other) leaves anything of a suppressed cell. A breakdown cell none of whose joint
 * cells is shown is `{suppressed: true}`; one with some shown counts only those (docs/integrity.md).
 *
 * The joint cells are the cell routes' (cells.ts): from the rollup for a range of whole hours, distinct
 * clients and registered sites counted as every cell counts them; from the raw table otherwise (a range
 * asked to the millisecond). This route needs no token, and its range is bounded (query/routes/summary.ts).
 */
import type { ClickHouseClient } from '@clickhouse/client';
import { buildCellSql, fewSites } from './cells';
import { RAW } from './sources';
import { heavyWhen } from '../platform/store/query-pool';
import type { Table } from './dimensions';

export interface SummaryCell {
  records?: number;
  suppressed?: true;
}

export interface Summary {
  /** The table read: the rollup for a range of whole hours, the raw table else. */
  table: Table;
  records: number;
  byProtocol: Record<string, SummaryCell>;
  byTlsVersion: Record<string, SummaryCell>;
}

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** More than the joint cells there can be (protocols × TLS versions). */
const MAX_JOINT_CELLS = 1000;

export async function querySummary(
  client: ClickHouseClient,
  range: { from: number; to: number; minSites?: number },
  minClients: number,
): Promise<Summary> {
  const minSites = range.minSites ?? 1;
  const { sql, params, readTable } = buildCellSql(
    {
      // The rollup when it holds the range (whole hours, a threshold it counts to); the raw table else.
      table: 'rollup',
      // Whole-range cells count the rows within the cap marked at ingest (query/counted.ts): no read-time cap.
      filters: { from: range.from, to: range.to, site: null, clientCap: 0, minSites },
      dimensions: ['protocol', 'tlsVersion'],
      metrics: 'counts',
      limit: MAX_JOINT_CELLS,
      unordered: true,
    },
    minClients,
  );
  // A read of the raw table is heavy (query-pool.ts): it takes turns with other heavy ones.
  const found = await heavyWhen(readTable === RAW, async () =>
    (await client.query({ query: sql, query_params: params, format: 'JSONEachRow' })).json<{
      d_protocol: string;
      d_tlsVersion: string;
      n_records: number;
      n_clients: number;
      n_sites?: number;
    }>(),
  );
  // In a fixed order, so the answer's keys are too.
  const rows = found
    .filter((r) => Number(r.n_records) > 0)
    .map((r) => ({
      protocol: r.d_protocol,
      version: r.d_tlsVersion,
      records: r.n_records,
      clients: r.n_clients,
      sites: r.n_sites ?? 0,
    }))
    .sort((a, b) => byText(a.protocol, b.protocol) || byText(a.version, b.version));
  const summary: Summary = {
    table: readTable.name === 'raw' ? 'raw' : 'rollup',
    records: 0,
    byProtocol: {},
    byTlsVersion: {},
  };
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
