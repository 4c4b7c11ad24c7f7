/**
 * What every query route does before its query: who is asking (scope), which site it may read, the
 * time range and its defaults, raw table or rollup, and whether the store is up.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { chooseTable, type CellAnswer, type Filters } from '../queries/cells';
import { DIMENSIONS, type Dimension, type Table } from '../queries/dimensions';
import { scopeOf, siteFor } from '../plugins/auth';
import { httpError } from '../plugins/error-handler';
import type { CommonQuery } from '../schemas/query';

export const DEFAULT_RANGE_MS = 7 * 86_400_000;
export const MAX_RANGE_MS = 400 * 86_400_000;
/**
 * Without a token: anyone may ask, so the range is bounded tighter (the dashboard offers at most 30 days;
 * a range the rollup cannot answer reads the raw table, docs/integrity.md).
 */
export const PUBLIC_MAX_RANGE_MS = 92 * 86_400_000;

export interface QueryContext {
  table: Table;
  filters: Filters;
}

export async function queryContext(app: FastifyInstance, request: FastifyRequest, q: CommonQuery): Promise<QueryContext> {
  const scope = await scopeOf(app, request);
  const site = siteFor(scope, q.site);
  const to = q.to ?? Date.now();
  const from = q.from ?? to - DEFAULT_RANGE_MS;
  if (from >= to) throw httpError(400, 'querystring/from must be before querystring/to');
  const max = scope.kind === 'public' ? PUBLIC_MAX_RANGE_MS : MAX_RANGE_MS;
  if (to - from > max) {
    throw httpError(400, `querystring/from: the range may span at most ${max / 86_400_000} days${scope.kind === 'public' ? ' without a token' : ''}`);
  }
  if (!app.storeStatus.ready) throw httpError(503, 'the store is not reachable yet', { 'retry-after': '5' });
  const chosen = chooseTable({ from, to }, q.table ?? 'auto');
  return {
    table: chosen.table,
    filters: { from: chosen.from, to: chosen.to, site, source: q.source, browser: q.browser, country: q.country },
  };
}

/** "a,b" → the whitelisted dimensions, without repeats (the schema already checked each name). */
export function parseDimensions(list: string | undefined, fallback: Dimension[]): Dimension[] {
  if (!list) return fallback;
  const names = list.split(',').filter((d): d is Dimension => (DIMENSIONS as readonly string[]).includes(d));
  return [...new Set(names)];
}

export function answer(ctx: QueryContext, minClients: number, result: CellAnswer) {
  return { table: result.table, from: ctx.filters.from, to: ctx.filters.to, site: ctx.filters.site, minClients, cells: result.cells, truncated: result.truncated };
}

/** Answers depend on the token: only the reader's own cache may keep them, briefly. */
export function privateCache(reply: FastifyReply): void {
  reply.header('cache-control', 'private, max-age=60');
  reply.header('vary', 'authorization');
}
