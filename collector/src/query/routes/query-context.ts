/**
 * What the cell routes (compare, timeseries, map, phases) share: their read rule (public, 7 days by
 * default, at most 400), the request's filters with raw table or rollup chosen, and their answer.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DIMENSION_NAMES, VALUE_FILTERS } from '@tlsrum/shared/query';
import { chooseTable, type CellAnswer, type Filters, type ValueFilters } from '../cells';
import type { Dimension, Table } from '../dimensions';
import type { CommonQuery } from '../params';
import type { ReadRule, RequestScope } from './read-scope';
import { keepOnlyIfFound } from './kept-answers';

export const DEFAULT_RANGE_MS = 7 * 86_400_000;
export const MAX_RANGE_MS = 400 * 86_400_000;

export const CELLS_READ: ReadRule = {
  anonymous: 'all-sites',
  cache: true,
  range: {
    defaultMs: DEFAULT_RANGE_MS,
    maxMs: MAX_RANGE_MS,
    tooLong: `querystring/from: the range may span at most ${MAX_RANGE_MS / 86_400_000} days`,
  },
};

export interface QueryContext {
  table: Table;
  filters: Filters;
}

/** The catalogue's value filters a query string sets. */
export function valueFilters(q: ValueFilters): ValueFilters {
  return Object.fromEntries(VALUE_FILTERS.filter((f) => q[f] !== undefined).map((f) => [f, q[f]]));
}

/**
 * The request's scope and filters, with the table to read (the rollup widens the range to whole days). A
 * site's own read token asking for source=synthetic reads that owner's own runs (query/cells.ts,
 * `ownSynthetic`): they are in the raw table only, so it is read over the range as asked.
 */
export function queryContext(
  { site, from, to, minSites, owner }: RequestScope,
  q: CommonQuery,
  clientCap: number,
): QueryContext {
  if (owner && site !== null && q.source === 'synthetic')
    return {
      table: 'raw',
      filters: { from, to, site, clientCap, minSites, ...valueFilters(q), ownSynthetic: true },
    };
  const chosen = chooseTable({ from, to }, q.table ?? 'auto');
  return {
    table: chosen.table,
    filters: { from: chosen.from, to: chosen.to, site, clientCap, minSites, ...valueFilters(q) },
  };
}

/** "a,b" → the catalogue's dimensions, without repeats (the schema already checked each name). */
export function parseDimensions(list: string | undefined, fallback: Dimension[]): Dimension[] {
  if (!list) return fallback;
  const names = list.split(',').filter((d): d is Dimension => (DIMENSION_NAMES as readonly string[]).includes(d));
  return [...new Set(names)];
}

/** The cells as the route answers them; an answer that found nothing is not kept (kept-answers.ts). */
export function answer(request: FastifyRequest, ctx: QueryContext, minClients: number, result: CellAnswer) {
  keepOnlyIfFound(request, result.cells.length > 0);
  return {
    table: result.table,
    from: ctx.filters.from,
    to: ctx.filters.to,
    site: ctx.filters.site,
    minClients,
    ...(ctx.filters.ownSynthetic ? { ownSynthetic: true as const } : {}),
    cells: result.cells,
    truncated: result.truncated,
  };
}

/** Answers depend on the token: only the reader's own cache may keep them, briefly. */
export function privateCache(reply: FastifyReply): void {
  reply.header('cache-control', 'private, max-age=60');
  reply.header('vary', 'authorization');
}
