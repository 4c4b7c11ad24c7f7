import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { MAX_TS, MIN_TS } from '@tlsrum/shared';
import { widenedRange } from '@tlsrum/shared/query';
import { querySummary } from '../summary';
import { DEFAULT_RANGE_MS } from './query-context';

/** The summary needs no token, and a range not in whole hours reads the raw table: its range is bounded like a short query. */
export const SUMMARY_MAX_RANGE_MS = 31 * 86_400_000;
import { ErrorResponse } from '../../platform/http/responses';

const Cell = Type.Object({ records: Type.Optional(Type.Integer()), suppressed: Type.Optional(Type.Boolean()) });

const summary: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/v1/summary',
    {
      // Counts over every site together, small cells suppressed: nothing a token would change. It needs no
      // token: never the whole table, the last 7 days unless asked, at most 31.
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
        description:
          'Over [from, to) as asked; without `from` and `to`, the last 7 days widened to whole days, as the other figures are (the answer says the range it covers). A range of whole hours is read from the pre-aggregated rollup, any other from the raw table.',
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
            from: Type.Integer({ description: 'epoch ms: the start of the range counted' }),
            to: Type.Integer({ description: 'epoch ms: the end of the range counted (exclusive)' }),
            table: Type.Enum(['raw', 'rollup'], { description: 'where the counts were read' }),
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
      const { scope, query } = request;
      // The default range is the collector's own choice: in whole units, so it is read from the rollup.
      const range = query.from === undefined && query.to === undefined ? { ...scope, ...widenedRange(scope) } : scope;
      const summary = await querySummary(app.store.query, range, app.config.minClientsPerCell);
      return { from: range.from, to: range.to, ...summary };
    },
  );
};

export default summary;
