/** GET /v1/map: handshake metrics and protocol mix per country (ISO 3166-1 alpha-2, ZZ = unknown). */
import type { ClickHouseClient } from '@clickhouse/client';
import { queryCells, type Filters } from './cells';
import type { Table } from './dimensions';

export function queryMap(client: ClickHouseClient, table: Table, filters: Filters, minClients: number) {
  // ~250 countries exist: the limit is never the reason a country is missing.
  return queryCells(client, { table, filters, dimensions: ['country'], metrics: 'handshake', limit: 300 }, minClients);
}
