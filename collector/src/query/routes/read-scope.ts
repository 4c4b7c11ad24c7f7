/**
 * The request scope of every /v1 read route, resolved once by a preHandler hook (after the query string
 * is validated): who is asking (token → scope), which site they may read, the time range with the
 * route's defaults and limit, and whether the store is up. The route finds it in `request.scope`; each
 * route declares its rules in `config.read` (query/routes/read.ts registers the routes under this hook).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { MAX_TS, MIN_TS } from '@tlsrum/shared';
import type { FilterQuery } from '@tlsrum/shared/query/schemas';
import { scopeOf, siteFor, type Scope } from '../../sites/auth';
import { httpError } from '../../platform/http/error-handler';

export interface ReadRule {
  /**
   * A request without a token: `all-sites` reads every site together; `refuse` is answered 401 with the
   * message given; `unchecked` reads aggregates over every site without looking at any token.
   */
  anonymous: 'all-sites' | 'unchecked' | { refuse: string };
  /** The time range: defaults and longest span, or `unbounded` (all time by default, any span); absent: no range. */
  range?: { defaultMs: number; maxMs: number; tooLong: string } | 'unbounded';
  /**
   * The answer depends only on the scope, the query and the stored records (and registered hostnames): it
   * may be kept for ANSWER_CACHE_SECONDS and served again to a reader of the same scope (query/answer-cache.ts).
   */
  cache?: boolean;
}

export interface RequestScope {
  /** One site, or null for every site together. */
  site: string | null;
  /** epoch ms, [from, to); 0 for routes without a range. */
  from: number;
  to: number;
  /** The k-sites rule for this reader: MIN_SITES_PER_CELL without a token, 1 (off) with one (query/cells.ts). */
  minSites: number;
  /** The reader holds `site`'s own read token (not the admin token): its owner, who may read their own synthetic runs (query-context.ts). */
  owner: boolean;
  /** No token: anyone may ask, so a route bounds the work such a request may cause more tightly. */
  anonymous: boolean;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    read?: ReadRule;
  }
  interface FastifyRequest {
    scope: RequestScope;
  }
}

type ReadQuery = FilterQuery & { from?: number; to?: number };

async function readerScope(app: FastifyInstance, request: FastifyRequest, rule: ReadRule): Promise<Scope> {
  if (rule.anonymous === 'unchecked') return { kind: 'public' };
  const scope = await scopeOf(app, request);
  if (scope.kind === 'public' && typeof rule.anonymous === 'object') throw httpError(401, rule.anonymous.refuse);
  return scope;
}

/**
 * Without a token, anyone may ask: a range spans at most this long whatever the route allows a token
 * holder (the dashboard offers up to 30 days; a range no rollup cut answers reads the raw table).
 */
export const PUBLIC_MAX_RANGE_MS = 92 * 86_400_000;

function timeRange(rule: ReadRule, q: ReadQuery, scope: Scope): { from: number; to: number } {
  if (!rule.range) return { from: 0, to: 0 };
  const r = rule.range;
  const to = q.to ?? (r === 'unbounded' ? MAX_TS : Date.now());
  const from = q.from ?? (r === 'unbounded' ? MIN_TS : to - r.defaultMs);
  if (from >= to) throw httpError(400, 'querystring/from must be before querystring/to');
  if (r !== 'unbounded' && to - from > r.maxMs) throw httpError(400, r.tooLong);
  if (scope.kind === 'public' && to - from > PUBLIC_MAX_RANGE_MS) {
    throw httpError(
      400,
      `querystring/from: without a token the range may span at most ${PUBLIC_MAX_RANGE_MS / 86_400_000} days`,
    );
  }
  return { from, to };
}

export function installReadScope(app: FastifyInstance): void {
  app.decorateRequest('scope', null as unknown as RequestScope);
  app.addHook('preHandler', async (request) => {
    const rule = request.routeOptions.config.read;
    if (!rule) throw new Error(`${request.routeOptions.url} is registered as a read route without a read rule`);
    const q = request.query as ReadQuery;
    const scope = await readerScope(app, request, rule);
    const site = rule.anonymous === 'unchecked' ? null : siteFor(scope, q.site);
    const range = timeRange(rule, q, scope);
    if (!app.storeStatus.ready) throw httpError(503, 'the store is not reachable yet', { 'retry-after': '5' });
    request.scope = {
      site,
      ...range,
      minSites: scope.kind === 'public' ? app.config.minSitesPerCell : 1,
      owner: scope.kind === 'site',
      anonymous: scope.kind === 'public',
    };
  });
}
