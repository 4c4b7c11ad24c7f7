/**
 * A GET route answering cells grouped by 1–3 dimensions of the request's choice (default stack,mode):
 * /v1/compare and /v1/phases differ only in their metrics, limit and documentation.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { queryCells, type MetricSet } from '../cells';
import { ErrorResponse } from '../../platform/http/responses';
import { CommonQuery, DimensionList, QueryAnswer } from '../params';
import { answer, CELLS_READ, parseDimensions, privateCache, queryContext } from './query-context';

export interface GroupedCellsRoute {
  path: string;
  summary: string;
  description?: string;
  metrics: MetricSet;
  limit: number;
}

export function groupedCellsRoute(route: GroupedCellsRoute): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      route.path,
      {
        config: { read: CELLS_READ },
        schema: {
          summary: route.summary,
          ...(route.description ? { description: route.description } : {}),
          tags: ['query'],
          security: [{}, { bearer: [] }],
          querystring: Type.Object({
            ...CommonQuery,
            dimensions: Type.Optional(DimensionList(3, 'Comma-separated, 1–3 of the dimensions (default stack,mode).')),
          }),
          response: {
            200: QueryAnswer,
            400: ErrorResponse,
            401: ErrorResponse,
            403: ErrorResponse,
            503: ErrorResponse,
          },
        },
      },
      async (request, reply) => {
        const ctx = queryContext(request.scope, request.query, app.config.clientRecordsPerCellDay);
        const dimensions = parseDimensions(request.query.dimensions, ['stack', 'mode']);
        const min = app.config.minClientsPerCell;
        privateCache(reply);
        const cells = await queryCells(
          app.store.query,
          { table: ctx.table, filters: ctx.filters, dimensions, metrics: route.metrics, limit: route.limit },
          min,
        );
        return answer(request, ctx, min, cells);
      },
    );
  };
}
