import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { queryCompare } from '../queries/compare';
import { ErrorResponse } from '../schemas/responses';
import { CommonQuery, DimensionList, QueryAnswer } from '../schemas/query';
import { answer, parseDimensions, privateCache, queryContext } from './query-context';

const compare: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/v1/compare',
    {
      schema: {
        summary: 'Handshake metrics per group: records, distinct clients, p50/p75/p95 of tls, connect, ttfb, class shares',
        description:
          'Groups by up to three dimensions (default `stack,mode`: TLS 1.2 / TLS 1.3 / h3 × full / resumed / 0-RTT). Cells with fewer distinct clients than `minClients` come back as `{key, suppressed: true}`.',
        tags: ['query'],
        security: [{}, { bearer: [] }],
        querystring: Type.Object({
          ...CommonQuery,
          dimensions: Type.Optional(DimensionList(3, 'Comma-separated, 1–3 of the dimensions (default stack,mode).')),
        }),
        response: { 200: QueryAnswer, 400: ErrorResponse, 401: ErrorResponse, 403: ErrorResponse, 503: ErrorResponse },
      },
    },
    async (request, reply) => {
      const ctx = await queryContext(app, request, request.query);
      const dimensions = parseDimensions(request.query.dimensions, ['stack', 'mode']);
      const min = app.config.minClientsPerCell;
      privateCache(reply);
      return answer(ctx, min, await queryCompare(app.store.query, ctx.table, ctx.filters, dimensions, min));
    },
  );
};

export default compare;
