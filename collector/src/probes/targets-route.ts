/**
 * Extra hostnames probed with a registered site (admin token): a static host, an API host. Only hostnames
 * an admin registered are ever probed (probes/plugin.ts); their history stays until it expires.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { Hostname } from '@tlsrum/shared';
import { adminOnly } from '../sites/auth';
import { httpError } from '../platform/http/error-handler';
import { saveProbeTarget } from './store';
import { ErrorResponse } from '../platform/http/responses';

const probeTargets: FastifyPluginAsyncTypebox = async (app) => {
  const admin = adminOnly(app);
  const requireAdmin = async (request: FastifyRequest) => {
    await admin(request);
    if (!app.storeStatus.ready) throw httpError(503, 'the store is not reachable yet', { 'retry-after': '5' });
  };
  const errors = { 400: ErrorResponse, 401: ErrorResponse, 403: ErrorResponse, 404: ErrorResponse, 503: ErrorResponse };

  app.post(
    '/v1/sites/:hostname/probe-targets',
    {
      preHandler: requireAdmin,
      schema: {
        summary: 'Probe one more hostname with a registered site (admin token)',
        security: [{ bearer: [] }],
        params: Type.Object({ hostname: Hostname }),
        body: Type.Object({ hostname: Hostname }, { additionalProperties: false }),
        response: { 201: Type.Object({ site: Type.String(), hostname: Type.String() }), ...errors },
      },
    },
    async (request, reply) => {
      const site = request.params.hostname;
      if (!app.sites.has(site)) throw httpError(404, `${site} is not a registered site`);
      await saveProbeTarget(app.store.query, site, request.body.hostname, false);
      app.siteHostnames.changed();
      return reply.status(201).send({ site, hostname: request.body.hostname });
    },
  );

  app.delete(
    '/v1/sites/:hostname/probe-targets/:target',
    {
      preHandler: requireAdmin,
      schema: {
        summary: 'Stop probing an extra hostname (admin token); its history stays until it expires',
        security: [{ bearer: [] }],
        params: Type.Object({ hostname: Hostname, target: Hostname }),
        response: { 200: Type.Object({ site: Type.String(), hostname: Type.String() }), ...errors },
      },
    },
    async (request) => {
      await saveProbeTarget(app.store.query, request.params.hostname, request.params.target, true);
      app.siteHostnames.changed();
      return { site: request.params.hostname, hostname: request.params.target };
    },
  );
};

export default probeTargets;
