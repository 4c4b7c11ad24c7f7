import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { MAX_TS, MIN_TS } from '@tlsrum/shared';
import { querySummary } from '../queries/summary';
import { ErrorResponse } from '../schemas/responses';

const Cell = Type.Object({ records: Type.Optional(Type.Integer()), suppressed: Type.Optional(Type.Boolean()) });

const summary: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/v1/summary',
    {
      // Counts over every site together, small cells suppressed: nothing a token would change.
      config: { read: { anonymous: 'unchecked', range: 'unbounded' } },
      schema: {
        summary: 'Record counts by protocol and TLS version (small cells suppressed)',
        querystring: Type.Object({
          from: Type.Optional(Type.Integer({ minimum: MIN_TS, maximum: MAX_TS, description: 'epoch ms, inclusive' })),
          to: Type.Optional(Type.Integer({ minimum: MIN_TS, maximum: MAX_TS, description: 'epoch ms, exclusive' })),
        }),
        response: {
          200: Type.Object({
            records: Type.Integer(),
            byProtocol: Type.Record(Type.String(), Cell),
            byTlsVersion: Type.Record(Type.String(), Cell),
          }),
          400: ErrorResponse,
          503: ErrorResponse,
        },
      },
    },
    async (request) => querySummary(app.store.query, request.scope, app.config.minClientsPerCell),
  );
};

export default summary;
