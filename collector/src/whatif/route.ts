import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { FilterQuery, WhatIfAnswer } from '@tlsrum/shared/query/schemas';
import { whatIf } from './report';
import { ErrorResponse } from '../platform/http/responses';
import { httpError } from '../platform/http/error-handler';
import { TimeRange } from '../query/params';
import { valueFilters } from '../query/routes/query-context';
import { keepOnlyIfFound } from '../query/routes/kept-answers';

const DAY = 86_400_000;
const MAX_RANGE_DAYS = 31;
const MAX_LIMIT = 500_000;
/**
 * Without a token, at most this many connections are modelled: anyone may ask, and the work grows with
 * `limit` (reading, then modelling every connection under every scenario). A sample this size gives the
 * same medians and quartiles; the dashboard asks for 50 000.
 */
export const PUBLIC_MAX_LIMIT = 100_000;

const whatif: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/v1/whatif',
    {
      config: {
        read: {
          anonymous: 'all-sites',
          cache: true,
          range: {
            defaultMs: DAY,
            maxMs: MAX_RANGE_DAYS * DAY,
            tooLong: `querystring: the range is limited to ${MAX_RANGE_DAYS} days`,
          },
        },
      },
      schema: {
        summary:
          'Round trips spent on connection set-up, and TTFB if TLS 1.3 / resumption / 0-RTT / HTTP/3 / a combined handshake were used',
        description:
          'For the site (or every site, without a token) and each country: round trips per new connection by phase and handshake class, and p50/p75 TTFB today and under each scenario, ranked by p75 saving. The assumptions are part of the answer. Countries with fewer distinct clients than MIN_CLIENTS_PER_CELL are suppressed, and so is any whose figures would come from fewer (a sampled range reads a small country whole).',
        tags: ['query'],
        security: [{}, { bearer: [] }],
        querystring: Type.Object({
          ...TimeRange('24 h before `to`'),
          ...FilterQuery,
          ticketLifetimeHours: Type.Optional(
            Type.Integer({
              minimum: 1,
              maximum: 168,
              default: 24,
              description: 'how far back an earlier connection makes a repeat (TLS 1.3 caps tickets at 7 days)',
            }),
          ),
          limit: Type.Optional(
            Type.Integer({
              minimum: 1000,
              maximum: MAX_LIMIT,
              default: PUBLIC_MAX_LIMIT,
              description: `most connections analysed; a range holding more is sampled evenly over its whole span. Without a token at most ${PUBLIC_MAX_LIMIT}`,
            }),
          ),
        }),
        response: { 200: WhatIfAnswer, 400: ErrorResponse, 401: ErrorResponse, 403: ErrorResponse, 503: ErrorResponse },
      },
    },
    async (request) => {
      const q = request.query;
      if (request.scope.anonymous && (q.limit ?? 0) > PUBLIC_MAX_LIMIT)
        throw httpError(
          400,
          `querystring/limit: without a token the what-if analyses at most ${PUBLIC_MAX_LIMIT} connections (a sample spread over the whole range); a site's read token allows up to ${MAX_LIMIT}`,
        );
      const report = await whatIf(
        app.store.query,
        {
          ...request.scope,
          filters: valueFilters(q),
          ticketLifetimeMs: (q.ticketLifetimeHours ?? 24) * 3_600_000,
          limit: q.limit ?? PUBLIC_MAX_LIMIT,
        },
        app.config.minClientsPerCell,
      );
      keepOnlyIfFound(request, report.connections > 0);
      return report;
    },
  );
};

export default whatif;
