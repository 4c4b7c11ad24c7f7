import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { MAX_CELLS, queryCells } from '../cells';
import { ErrorResponse } from '../../platform/http/responses';
import { CommonQuery, QueryAnswer } from '../params';
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
      const ctx = queryContext(request.scope, request.query, app.config.clientRecordsPerCellDay);
      const min = app.config.minClientsPerCell;
      privateCache(reply);
      const cells = await queryCells(
        app.store.query,
        { table: ctx.table, filters: ctx.filters, dimensions: ['country'], metrics: 'handshake', limit: MAX_CELLS.map },
        min,
      );
      return answer(request, ctx, min, cells);
    },
  );
};

export default map;
