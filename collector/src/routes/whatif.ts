import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { MAX_TS, MIN_TS } from '@tlsrum/shared';
import { httpError } from '../plugins/error-handler';
import { readScope } from '../whatif/scope';
import { whatIf } from '../whatif/report';
import { ErrorResponse } from '../schemas/responses';
import { queryRateLimit } from '../plugins/rate-limit';

const DAY = 86_400_000;
const MAX_RANGE_DAYS = 31;

const whatif: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/v1/whatif',
    {
      config: { rateLimit: queryRateLimit(app.config) },
      schema: {
        summary: 'Round trips spent on connection set-up, and TTFB if TLS 1.3 / resumption / 0-RTT / HTTP/3 / a combined handshake were used',
        description:
          'For the site (or every site, without a token) and each country: round trips per new connection by phase and handshake class, and p50/p75 TTFB today and under each scenario, ranked by p75 saving. The assumptions are part of the answer. Countries with fewer distinct clients than MIN_CLIENTS_PER_CELL are suppressed.',
        querystring: Type.Object({
          site: Type.Optional(Type.String({ maxLength: 253 })),
          from: Type.Optional(Type.Integer({ minimum: MIN_TS, maximum: MAX_TS, description: 'epoch ms, inclusive; default: 24 h before `to`' })),
          to: Type.Optional(Type.Integer({ minimum: MIN_TS, maximum: MAX_TS, description: 'epoch ms, exclusive; default: now' })),
          source: Type.Optional(Type.Union([Type.Literal('rum'), Type.Literal('synthetic')])),
          country: Type.Optional(Type.String({ pattern: '^[A-Z]{2}$' })),
          browser: Type.Optional(Type.String({ maxLength: 32 })),
          ticketLifetimeHours: Type.Optional(Type.Integer({ minimum: 1, maximum: 168, default: 24, description: 'how far back an earlier connection makes a repeat (TLS 1.3 caps tickets at 7 days)' })),
          limit: Type.Optional(Type.Integer({ minimum: 1000, maximum: 500_000, default: 200_000, description: 'most recent connections analysed' })),
        }),
        response: { 200: Type.Unknown(), 400: ErrorResponse, 401: ErrorResponse, 403: ErrorResponse, 503: ErrorResponse },
      },
    },
    async (request) => {
      const q = request.query;
      const site = await readScope(app, request, q.site);
      const to = q.to ?? Date.now();
      const from = q.from ?? to - DAY;
      if (from >= to) throw httpError(400, 'querystring/from must be before querystring/to');
      if (to - from > MAX_RANGE_DAYS * DAY) throw httpError(400, `querystring: the range is limited to ${MAX_RANGE_DAYS} days`);
      if (!app.storeStatus.ready) throw httpError(503, 'the store is not reachable yet', { 'retry-after': '5' });
      return whatIf(
        app.store.query,
        {
          site,
          from,
          to,
          source: q.source ?? null,
          country: q.country ?? null,
          browser: q.browser ?? null,
          ticketLifetimeMs: (q.ticketLifetimeHours ?? 24) * 3_600_000,
          limit: q.limit ?? 200_000,
        },
        app.config.minClientsPerCell,
      );
    },
  );
};

export default whatif;
