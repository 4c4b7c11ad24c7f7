import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { httpError } from '../plugins/error-handler';
import { alertScope } from '../alerts/scope';
import { ErrorResponse } from '../schemas/responses';
import { PROBE_CHECKS } from '../probe/changes';
import { CHECKS } from '../alerts/checks';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

export const AlertSchema = Type.Object({
  site: Type.String(),
  window: Type.Union([Type.Literal('hour'), Type.Literal('day'), Type.Literal('probe')], {
    description: "hour/day: field data against the week before; probe: the site's probe history",
  }),
  check: Type.Enum([...CHECKS, ...PROBE_CHECKS]),
  hostname: Type.Optional(Type.String({ description: 'probe checks: the hostname probed' })),
  summary: Type.Optional(Type.String({ description: 'probe checks: the finding in one sentence' })),
  status: Type.Union([Type.Literal('ok'), Type.Literal('firing'), Type.Literal('insufficient_data')]),
  current: Nullable(Type.Number()),
  baseline: Nullable(Type.Number()),
  change: Nullable(Type.Number()),
  pValue: Nullable(Type.Number()),
  samples: Type.Object({ current: Type.Integer(), baseline: Type.Integer() }),
  since: Nullable(Type.Integer()),
  evaluatedAt: Type.Integer(),
  range: Type.Object({ from: Type.Integer(), to: Type.Integer(), baselineFrom: Type.Integer(), baselineTo: Type.Integer() }),
});

const alerts: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/v1/alerts',
    {
      schema: {
        summary: "Regression checks of a site: the last hour and day against the same window a week earlier",
        description:
          'Shares are 0–1, p75s in ms. A check fires when both windows have enough records and clients, the change reaches the configured effect size and a one-sided test rejects "no change" at ALERT_ALPHA. Needs the site\'s read token (or the admin token).',
        querystring: Type.Object({
          site: Type.Optional(Type.String({ maxLength: 253 })),
          status: Type.Optional(Type.Union([Type.Literal('ok'), Type.Literal('firing'), Type.Literal('insufficient_data')])),
        }),
        response: {
          200: Type.Object({
            evaluatedAt: Nullable(Type.Integer()),
            thresholds: Type.Object({ alpha: Type.Number(), minSamples: Type.Integer(), minClients: Type.Integer(), shareDrop: Type.Number(), p75Rise: Type.Number() }),
            alerts: Type.Array(AlertSchema),
          }),
          400: ErrorResponse,
          401: ErrorResponse,
          403: ErrorResponse,
          503: ErrorResponse,
        },
      },
    },
    async (request) => {
      const site = await alertScope(app, request, request.query.site);
      if (!app.storeStatus.ready) throw httpError(503, 'the store is not reachable yet', { 'retry-after': '5' });
      const list = app.alerts.list(site).filter((a) => !request.query.status || a.status === request.query.status);
      return { evaluatedAt: app.alerts.lastEvaluatedAt, thresholds: app.config.alerts.thresholds, alerts: list };
    },
  );
};

export default alerts;
