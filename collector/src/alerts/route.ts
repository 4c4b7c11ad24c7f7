import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { CHECK_STATUSES } from '@tlsrum/shared/query';
import { AlertsAnswer, FilterQuery } from '@tlsrum/shared/query/schemas';
import { ErrorResponse } from '../platform/http/responses';

const alerts: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/v1/alerts',
    {
      // Alerts are per site, so there is no public view: the admin token reads every site (or one with
      // `?site=`), a site's read token only that site.
      config: { read: { anonymous: { refuse: "alerts need the site's read token or the admin token" } } },
      schema: {
        summary: 'Regression checks of a site: the last hour and day against the same window a week earlier',
        description:
          'Shares are 0–1, p75s in ms. A check fires when both windows have enough records and clients, the change reaches the configured effect size and a one-sided test rejects "no change" at ALERT_ALPHA. Needs the site\'s read token (or the admin token).',
        security: [{ bearer: [] }],
        querystring: Type.Object({
          site: FilterQuery.site,
          status: Type.Optional(Type.Enum(CHECK_STATUSES)),
        }),
        response: { 200: AlertsAnswer, 400: ErrorResponse, 401: ErrorResponse, 403: ErrorResponse, 503: ErrorResponse },
      },
    },
    async (request) => {
      const list = app.alerts
        .list(request.scope.site)
        .filter((a) => !request.query.status || a.status === request.query.status);
      return { evaluatedAt: app.alerts.lastEvaluatedAt, thresholds: app.config.alerts.thresholds, alerts: list };
    },
  );
};

export default alerts;
