import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { queryPhases } from '../queries/phases';
import { ErrorResponse } from '../schemas/responses';
import { CommonQuery, DimensionList, QueryAnswer } from '../schemas/query';
import { answer, parseDimensions, privateCache, queryContext } from './query-context';

const phases: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/v1/phases',
    {
      schema: {
        summary: 'p50/p75/p95 of each connection phase (dns, tcp, tls, connect, ttfb) per group',
        tags: ['query'],
        security: [{}, { bearer: [] }],
        querystring: Type.Object({
          ...CommonQuery,
          dimensions: Type.Optional(DimensionList(3, 'Comma-separated, 1–3 dimensions (default stack,mode).')),
        }),
        response: { 200: QueryAnswer, 400: ErrorResponse, 401: ErrorResponse, 403: ErrorResponse, 503: ErrorResponse },
      },
    },
    async (request, reply) => {
      const ctx = await queryContext(app, request, request.query);
      const dimensions = parseDimensions(request.query.dimensions, ['stack', 'mode']);
      const min = app.config.minClientsPerCell;
      privateCache(reply);
      return answer(ctx, min, await queryPhases(app.store.query, ctx.table, ctx.filters, dimensions, min));
    },
  );
};

export default phases;
