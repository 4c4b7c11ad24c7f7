import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { MAX_CELLS } from '../cells';
import { querySeriesCells } from '../closed-buckets';
import { ErrorResponse } from '../../platform/http/responses';
import { CommonQuery, DimensionList, QueryAnswer } from '../params';
import { answer, CELLS_READ, parseDimensions, privateCache, queryContext } from './query-context';

/** Ranges up to this long are bucketed by hour by default, longer ones by day. */
const HOURLY_UP_TO_MS = 3 * 86_400_000;

const timeseries: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/v1/timeseries',
    {
      config: { read: CELLS_READ },
      schema: {
        summary: 'Handshake metrics per hour or day, optionally split by one dimension',
        tags: ['query'],
        security: [{}, { bearer: [] }],
        querystring: Type.Object({
          ...CommonQuery,
          interval: Type.Optional(
            Type.Enum(['hour', 'day'], { description: 'Bucket size (default: hour up to 3 days, day beyond).' }),
          ),
          dimensions: Type.Optional(DimensionList(1, 'At most one dimension to split each bucket by (e.g. stack).')),
        }),
        response: { 200: QueryAnswer, 400: ErrorResponse, 401: ErrorResponse, 403: ErrorResponse, 503: ErrorResponse },
      },
    },
    async (request, reply) => {
      const ctx = queryContext(request.scope, request.query, app.config.clientRecordsPerCellDay);
      const bucket = request.query.interval ?? (ctx.filters.to - ctx.filters.from <= HOURLY_UP_TO_MS ? 'hour' : 'day');
      const dimensions = parseDimensions(request.query.dimensions, []);
      const min = app.config.minClientsPerCell;
      privateCache(reply);
      const q = {
        table: ctx.table,
        filters: ctx.filters,
        dimensions,
        bucket,
        metrics: 'handshake',
        limit: MAX_CELLS.timeseries,
      } as const;
      return answer(request, ctx, min, await querySeriesCells(app.store.query, q, min, app.closedBuckets));
    },
  );
};

export default timeseries;
