import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { MAX_TS, MIN_TS } from '@tlsrum/shared';
import { querySummary } from '../summary';
import { DEFAULT_RANGE_MS } from './query-context';

/** The summary reads the raw table (and needs no token): its range is bounded like a short query. */
export const SUMMARY_MAX_RANGE_MS = 31 * 86_400_000;
import { ErrorResponse } from '../../platform/http/responses';

const Cell = Type.Object({ records: Type.Optional(Type.Integer()), suppressed: Type.Optional(Type.Boolean()) });

const summary: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/v1/summary',
    {
      // Counts over every site together, small cells suppressed: nothing a token would change. It reads the
      // raw table and needs no token: never the whole table, the last 7 days unless asked, at most 31.
      config: {
        read: {
          anonymous: 'unchecked',
          range: {
            defaultMs: DEFAULT_RANGE_MS,
            maxMs: SUMMARY_MAX_RANGE_MS,
            tooLong: `querystring/from: the range may span at most ${SUMMARY_MAX_RANGE_MS / 86_400_000} days`,
          },
        },
      },
      schema: {
        summary: 'Record counts by protocol and TLS version (small cells suppressed; totals count shown cells only)',
        querystring: Type.Object({
          from: Type.Optional(
            Type.Integer({
              minimum: MIN_TS,
              maximum: MAX_TS,
              description: 'epoch ms, inclusive; default: 7 days before `to`',
            }),
          ),
          to: Type.Optional(
            Type.Integer({ minimum: MIN_TS, maximum: MAX_TS, description: 'epoch ms, exclusive; default: now' }),
          ),
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
