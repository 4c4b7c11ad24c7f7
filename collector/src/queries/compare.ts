/** GET /v1/compare: handshake metrics per combination of up to three dimensions. */
import type { ClickHouseClient } from '@clickhouse/client';
import { queryCells, type Filters } from './cells';
import type { Dimension, Table } from './dimensions';

export const COMPARE_MAX_CELLS = 2000;

export function queryCompare(client: ClickHouseClient, table: Table, filters: Filters, dimensions: readonly Dimension[], minClients: number) {
  return queryCells(client, { table, filters, dimensions, metrics: 'handshake', limit: COMPARE_MAX_CELLS }, minClients);
}
