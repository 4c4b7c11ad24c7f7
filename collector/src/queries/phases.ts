/** GET /v1/phases: p50/p75/p95 of each connection phase (dns, tcp, tls, connect, ttfb) per group. */
import type { ClickHouseClient } from '@clickhouse/client';
import { queryCells, type Filters } from './cells';
import type { Dimension, Table } from './dimensions';

export function queryPhases(client: ClickHouseClient, table: Table, filters: Filters, dimensions: readonly Dimension[], minClients: number) {
  return queryCells(client, { table, filters, dimensions, metrics: 'phases', limit: 2000 }, minClients);
}
