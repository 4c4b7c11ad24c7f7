/**
 * The dashboard's three main queries as the benchmarks run them: the same query both through the HTTP
 * API (path + query string) and directly on the store (the SQL the API's query builder produces).
 */
import { DEFAULT_MIN_CLIENTS_PER_CELL } from '@tlsrum/collector/config';
import { buildCellSql, MAX_CELLS, type CellQuery } from '@tlsrum/collector/query/cells';
import type { Table } from '@tlsrum/collector/query/dimensions';
import { DEFAULT_CLIENT_CAP } from '@tlsrum/collector/query/counted';

export const TABLES: readonly Table[] = ['raw', 'rollup'];

/** Fewest timed runs of a query, whatever the time budget. */
export const MIN_ROUNDS = 3;

export interface QuerySpec {
  name: 'compare' | 'map' | 'timeseries';
  path: string;
  params: Record<string, string>;
  cell: Omit<CellQuery, 'table' | 'filters'>;
}

export const QUERY_SPECS: readonly QuerySpec[] = [
  {
    name: 'compare',
    path: '/v1/compare',
    params: { dimensions: 'stack,mode' },
    cell: { dimensions: ['stack', 'mode'], metrics: 'handshake', limit: MAX_CELLS.compare },
  },
  {
    name: 'map',
    path: '/v1/map',
    params: {},
    cell: { dimensions: ['country'], metrics: 'handshake', limit: MAX_CELLS.map },
  },
  {
    name: 'timeseries',
    path: '/v1/timeseries',
    params: { interval: 'day' },
    cell: { dimensions: [], bucket: 'day', metrics: 'handshake', limit: MAX_CELLS.timeseries },
  },
];

/** The SQL and bound parameters the API runs for a spec over [from, to) on a table, every site (default threshold). */
export function directSql(spec: QuerySpec, table: Table, from: number, to: number): ReturnType<typeof buildCellSql> {
  return buildCellSql(
    { ...spec.cell, table, filters: { from, to, site: null, clientCap: DEFAULT_CLIENT_CAP } },
    DEFAULT_MIN_CLIENTS_PER_CELL,
  );
}

export function apiUrl(base: string, spec: QuerySpec, table: Table, from: number, to: number): string {
  const qs = new URLSearchParams({ ...spec.params, from: String(from), to: String(to), table });
  return `${base}${spec.path}?${qs}`;
}
