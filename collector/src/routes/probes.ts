/**
 * A site's probe history and latest profile (`GET /v1/sites/:hostname/probes`), and the extra hostnames
 * registered for probing with it (admin). Probe results describe the site's servers, never its users.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { Hostname, ProbeResult } from '@tlsrum/shared';
import { bearer, scopeOf, tokenMatches } from '../plugins/auth';
import { httpError } from '../plugins/error-handler';
import { changeLog } from '../probe/changes';
import { findings } from '../probe/findings';
import { listProbes, listProbeTargets, saveProbeTarget } from '../probe/store';
import { ErrorResponse } from '../schemas/responses';

const DAY = 86_400_000;
export const PROBE_HISTORY_MAX_RANGE_MS = 400 * DAY;
export const PROBE_HISTORY_MAX_ROWS = 5000;

const Probe = Type.Object({ hostname: Type.String(), at: Type.Integer({ description: 'epoch ms' }), result: ProbeResult });
const Finding = Type.Object({ level: Type.Enum(['good', 'warn', 'bad', 'info']), text: Type.String() });

const probes: FastifyPluginAsyncTypebox = async (app) => {
  /** The admin token, or the read token of this very site. */
  // Params are validated (Hostname) before the preHandlers run.
  const siteOf = (request: FastifyRequest) => (request.params as { hostname: string }).hostname;
  const requireSiteReader = async (request: FastifyRequest) => {
    const scope = await scopeOf(app, request);
    if (scope.kind === 'admin') return;
    if (scope.kind === 'site' && scope.site === siteOf(request)) return;
    if (scope.kind === 'site') throw httpError(403, `this token reads ${scope.site} only`);
    throw httpError(401, "probe results need the site's read token or the admin token");
  };
  const requireAdmin = async (request: FastifyRequest) => {
    if (!app.config.adminToken) throw httpError(403, 'registration is disabled: set ADMIN_TOKEN');
    if (!tokenMatches(bearer(request), app.config.adminToken)) throw httpError(401, 'admin token required');
  };
  const requireStore = async () => {
    if (!app.storeStatus.ready) throw httpError(503, 'the store is not reachable yet', { 'retry-after': '5' });
  };
  const requireRegistered = async (request: FastifyRequest) => {
    if (!app.sites.has(siteOf(request))) throw httpError(404, `${siteOf(request)} is not a registered site`);
  };

  app.get(
    '/v1/sites/:hostname/probes',
    {
      preHandler: [requireSiteReader, requireStore, requireRegistered],
      schema: {
        summary: "A site's TLS configuration probes: history, latest profile per hostname, what changed when",
        description: `Probes of the site and of the extra hostnames registered for it, oldest first (at most ${PROBE_HISTORY_MAX_ROWS}, the newest kept). \`result\` is the \`pnpm probe --json\` object (docs/probe.md). Needs the site's read token or the admin token.`,
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
          200: Type.Object({
            site: Type.String(),
            from: Type.Integer(),
            to: Type.Integer(),
            intervalMs: Type.Integer({ description: 'PROBE_INTERVAL_MS (0 = scheduled probing off)' }),
            hostnames: Type.Array(Type.String()),
            latest: Type.Array(Type.Object({ ...Probe.properties, findings: Type.Array(Finding) })),
            history: Type.Array(Probe),
            changes: Type.Array(
              Type.Object({ hostname: Type.String(), at: Type.Integer(), fact: Type.String(), from: Type.String(), to: Type.String() }),
            ),
          }),
          400: ErrorResponse,
          401: ErrorResponse,
          403: ErrorResponse,
          404: ErrorResponse,
          503: ErrorResponse,
        },
      },
    },
    async (request, reply) => {
      const to = request.query.to ?? Date.now();
      const from = request.query.from ?? to - 7 * DAY;
      if (from >= to) throw httpError(400, '`from` must be before `to`');
      if (to - from > PROBE_HISTORY_MAX_RANGE_MS) throw httpError(400, `the range may span at most ${PROBE_HISTORY_MAX_RANGE_MS / DAY} days`);
      const site = request.params.hostname;
      const [history, targets] = await Promise.all([listProbes(app.store.query, site, from, to, PROBE_HISTORY_MAX_ROWS), listProbeTargets(app.store.query)]);
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
      preHandler: [requireSiteReader, requireStore, requireRegistered],
      schema: {
        summary: 'Extra hostnames probed with a site',
        security: [{ bearer: [] }],
        params: Type.Object({ hostname: Hostname }),
        response: { 200: Type.Object({ site: Type.String(), hostnames: Type.Array(Type.String()) }), 401: ErrorResponse, 403: ErrorResponse, 404: ErrorResponse, 503: ErrorResponse },
      },
    },
    async (request) => {
      const site = request.params.hostname;
      return { site, hostnames: (await listProbeTargets(app.store.query)).filter((t) => t.site === site).map((t) => t.hostname) };
    },
  );

  app.post(
    '/v1/sites/:hostname/probe-targets',
    {
      preHandler: [requireAdmin, requireStore, requireRegistered],
      schema: {
        summary: 'Probe one more hostname with a registered site (admin token): a static host, an API host',
        security: [{ bearer: [] }],
        params: Type.Object({ hostname: Hostname }),
        body: Type.Object({ hostname: Hostname }, { additionalProperties: false }),
        response: { 201: Type.Object({ site: Type.String(), hostname: Type.String() }), 400: ErrorResponse, 401: ErrorResponse, 403: ErrorResponse, 404: ErrorResponse, 503: ErrorResponse },
      },
    },
    async (request, reply) => {
      await saveProbeTarget(app.store.query, request.params.hostname, request.body.hostname, false);
      return reply.status(201).send({ site: request.params.hostname, hostname: request.body.hostname });
    },
  );

  app.delete(
    '/v1/sites/:hostname/probe-targets/:target',
    {
      preHandler: [requireAdmin, requireStore],
      schema: {
        summary: 'Stop probing an extra hostname (admin token); its history stays until it expires',
        security: [{ bearer: [] }],
        params: Type.Object({ hostname: Hostname, target: Hostname }),
        response: { 200: Type.Object({ site: Type.String(), hostname: Type.String() }), 400: ErrorResponse, 401: ErrorResponse, 403: ErrorResponse, 503: ErrorResponse },
      },
    },
    async (request) => {
      await saveProbeTarget(app.store.query, request.params.hostname, request.params.target, true);
      return { site: request.params.hostname, hostname: request.params.target };
    },
  );
};

export default probes;
