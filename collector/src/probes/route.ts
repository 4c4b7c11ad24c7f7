/**
 * A site's probe history and latest profile (`GET /v1/sites/:hostname/probes`) and the extra hostnames
 * probed with it. Read routes (query/routes/read.ts resolves token, range and store state first): the site's read
 * token or the admin token. Probe results describe the site's servers, never its users.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { Hostname } from '@tlsrum/shared';
import { ProbesAnswer } from '@tlsrum/shared/query/schemas';
import { httpError } from '../platform/http/error-handler';
import { changeLog } from './changes';
import { findings } from '@tlsrum/probe/findings';
import { listProbes, listProbeTargets } from './store';
import { ErrorResponse } from '../platform/http/responses';

const DAY = 86_400_000;
export const PROBE_HISTORY_MAX_DAYS = 400;
export const PROBE_HISTORY_MAX_ROWS = 5000;

const REFUSE = { refuse: "probe results need the site's read token or the admin token" };

const probes: FastifyPluginAsyncTypebox = async (app) => {
  /** The read scope named a site (site token) or every site (admin): either way it must cover this one. */
  const siteOf = (request: FastifyRequest) => {
    const site = (request.params as { hostname: string }).hostname;
    if (request.scope.site !== null && request.scope.site !== site)
      throw httpError(403, `this token reads ${request.scope.site} only`);
    if (!app.sites.has(site)) throw httpError(404, `${site} is not a registered site`);
    return site;
  };

  app.get(
    '/v1/sites/:hostname/probes',
    {
      config: {
        read: {
          anonymous: REFUSE,
          range: {
            defaultMs: 7 * DAY,
            maxMs: PROBE_HISTORY_MAX_DAYS * DAY,
            tooLong: `the range may span at most ${PROBE_HISTORY_MAX_DAYS} days`,
          },
        },
      },
      schema: {
        summary: "A site's TLS configuration probes: history, latest profile per hostname, what changed when",
        description: `Probes of the site and of the extra hostnames registered for it, oldest first (at most ${PROBE_HISTORY_MAX_ROWS}, the newest kept); default range the last 7 days. \`result\` is the \`pnpm probe --json\` object (docs/probe.md). Needs the site's read token or the admin token.`,
        security: [{ bearer: [] }],
        params: Type.Object({ hostname: Hostname }),
        querystring: Type.Object(
          {
            from: Type.Optional(Type.Integer({ minimum: 0, description: 'epoch ms (default: 7 days before `to`)' })),
            to: Type.Optional(Type.Integer({ minimum: 0, description: 'epoch ms, exclusive (default: now)' })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: ProbesAnswer,
          400: ErrorResponse,
          401: ErrorResponse,
          403: ErrorResponse,
          404: ErrorResponse,
          503: ErrorResponse,
        },
      },
    },
    async (request, reply) => {
      const site = siteOf(request);
      const { from, to } = request.scope;
      const [history, targets] = await Promise.all([
        listProbes(app.store.query, site, from, to, PROBE_HISTORY_MAX_ROWS),
        listProbeTargets(app.store.query),
      ]);
      const hostnames = [site, ...targets.filter((t) => t.site === site && t.hostname !== site).map((t) => t.hostname)];
      const latest = hostnames.flatMap((h) => {
        const p = history.filter((x) => x.hostname === h).at(-1);
        return p ? [{ hostname: h, at: p.at, result: p.result, findings: findings(p.result) }] : [];
      });
      reply.header('cache-control', 'private, no-store');
      return {
        site,
        from,
        to,
        intervalMs: app.config.probe.intervalMs,
        hostnames,
        latest,
        history: history.map((p) => ({ hostname: p.hostname, at: p.at, result: p.result })),
        changes: changeLog(history),
      };
    },
  );

  app.get(
    '/v1/sites/:hostname/probe-targets',
    {
      config: { read: { anonymous: REFUSE } },
      schema: {
        summary: 'Extra hostnames probed with a site',
        security: [{ bearer: [] }],
        params: Type.Object({ hostname: Hostname }),
        response: {
          200: Type.Object({ site: Type.String(), hostnames: Type.Array(Type.String()) }),
          401: ErrorResponse,
          403: ErrorResponse,
          404: ErrorResponse,
          503: ErrorResponse,
        },
      },
    },
    async (request) => {
      const site = siteOf(request);
      return {
        site,
        hostnames: (await listProbeTargets(app.store.query)).filter((t) => t.site === site).map((t) => t.hostname),
      };
    },
  );
};

export default probes;
