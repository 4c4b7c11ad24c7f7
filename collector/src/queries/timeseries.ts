/** GET /v1/timeseries: handshake metrics per hour or day, optionally split by one dimension. */
import type { ClickHouseClient } from '@clickhouse/client';
import { queryCells, type Bucket, type Filters } from './cells';
import type { Dimension, Table } from './dimensions';

export const TIMESERIES_MAX_CELLS = 20_000;

export function queryTimeseries(
  client: ClickHouseClient,
  table: Table,
  filters: Filters,
  bucket: Bucket,
  dimensions: readonly Dimension[],
  minClients: number,
) {
  return queryCells(client, { table, filters, dimensions, bucket, metrics: 'handshake', limit: TIMESERIES_MAX_CELLS }, minClients);
}
