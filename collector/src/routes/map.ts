import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { queryMap } from '../queries/map';
import { ErrorResponse } from '../schemas/responses';
import { CommonQuery, QueryAnswer } from '../schemas/query';
import { answer, privateCache, queryContext } from './query-context';
import { queryRateLimit } from '../plugins/rate-limit';

const map: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/v1/map',
    {
      config: { rateLimit: queryRateLimit(app.config) },
      schema: {
        summary: 'Handshake metrics and protocol / TLS version / resumption mix per country',
        tags: ['query'],
        security: [{}, { bearer: [] }],
        querystring: Type.Object(CommonQuery),
        response: { 200: QueryAnswer, 400: ErrorResponse, 401: ErrorResponse, 403: ErrorResponse, 503: ErrorResponse },
      },
    },
    async (request, reply) => {
      const ctx = await queryContext(app, request, request.query);
      const min = app.config.minClientsPerCell;
      privateCache(reply);
      return answer(ctx, min, await queryMap(app.store.query, ctx.table, ctx.filters, min));
    },
  );
};

export default map;
