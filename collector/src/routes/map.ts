import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { queryMap } from '../queries/map';
import { ErrorResponse } from '../schemas/responses';
import { CommonQuery, QueryAnswer } from '../schemas/query';
import { answer, CELLS_READ, privateCache, queryContext } from './query-context';

const map: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/v1/map',
    {
      config: { read: CELLS_READ },
      schema: {
        summary: 'Handshake metrics and protocol / TLS version / resumption mix per country',
        tags: ['query'],
        security: [{}, { bearer: [] }],
        querystring: Type.Object(CommonQuery),
        response: { 200: QueryAnswer, 400: ErrorResponse, 401: ErrorResponse, 403: ErrorResponse, 503: ErrorResponse },
      },
    },
    async (request, reply) => {
      const ctx = queryContext(request.scope, request.query);
      const min = app.config.minClientsPerCell;
      privateCache(reply);
      return answer(ctx, min, await queryMap(app.store.query, ctx.table, ctx.filters, min));
    },
  );
};

export default map;
