import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { MAX_TS, MIN_TS } from '@tlsrum/shared';
import { DEFAULT_RANGE_MS } from './query-context';

/** The summary reads the raw table (and needs no token): its range is bounded like a raw read of a query route. */
export const SUMMARY_MAX_RANGE_MS = 31 * 86_400_000;
import { querySummary } from '../queries/summary';
import { httpError } from '../plugins/error-handler';
import { ErrorResponse } from '../schemas/responses';
import { queryRateLimit } from '../plugins/rate-limit';

const Cell = Type.Object({ records: Type.Optional(Type.Integer()), suppressed: Type.Optional(Type.Boolean()) });

const summary: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/v1/summary',
    {
      config: { rateLimit: queryRateLimit(app.config) },
      schema: {
        summary: 'Record counts by protocol and TLS version (small cells suppressed; totals count shown cells only)',
        querystring: Type.Object({
          from: Type.Optional(Type.Integer({ minimum: MIN_TS, maximum: MAX_TS, description: 'epoch ms, inclusive; default: 7 days before `to`' })),
          to: Type.Optional(Type.Integer({ minimum: MIN_TS, maximum: MAX_TS, description: 'epoch ms, exclusive; default: now' })),
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
    async (request) => {
      // Never the whole table: the last 7 days unless asked, at most SUMMARY_MAX_RANGE_MS.
      const to = request.query.to ?? Date.now();
      const from = request.query.from ?? to - DEFAULT_RANGE_MS;
      if (from >= to) throw httpError(400, 'querystring/from must be before querystring/to');
      if (to - from > SUMMARY_MAX_RANGE_MS) throw httpError(400, `querystring/from: the range may span at most ${SUMMARY_MAX_RANGE_MS / 86_400_000} days`);
      if (!app.storeStatus.ready) throw httpError(503, 'the store is not reachable yet', { 'retry-after': '5' });
      return querySummary(app.store.query, { from, to }, app.config.minClientsPerCell);
    },
  );
};

export default summary;
