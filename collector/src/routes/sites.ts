import { timingSafeEqual, createHash } from 'node:crypto';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { Hostname } from '@tlsrum/shared';
import { httpError } from '../plugins/error-handler';
import { ErrorResponse } from '../schemas/responses';

/** Constant-time comparison of a bearer token with the configured one (hashing equalises lengths). */
export function tokenMatches(given: string | undefined, expected: string | null): boolean {
  if (!expected || !given) return false;
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

function bearer(request: FastifyRequest): string | undefined {
  const h = request.headers.authorization;
  return h?.startsWith('Bearer ') ? h.slice(7).trim() : undefined;
}

const sites: FastifyPluginAsyncTypebox = async (app) => {
  const requireAdmin = async (request: FastifyRequest) => {
    if (!app.config.adminToken) throw httpError(403, 'site registration is disabled: set ADMIN_TOKEN');
    if (!tokenMatches(bearer(request), app.config.adminToken)) throw httpError(401, 'admin token required');
  };

  app.get(
    '/v1/sites',
    {
      schema: {
        summary: 'Registered site hostnames (the extension sends a hostname only for these)',
        response: { 200: Type.Object({ sites: Type.Array(Type.String()) }) },
      },
    },
    async (_request, reply) => {
      reply.header('cache-control', 'public, max-age=300');
      return { sites: app.sites.list() };
    },
  );

  app.post(
    '/v1/sites',
    {
      preHandler: requireAdmin,
      schema: {
        summary: 'Register a site (admin token)',
        body: Type.Object({ hostname: Hostname }, { additionalProperties: false }),
        response: { 201: Type.Object({ hostname: Type.String(), created: Type.Boolean() }), 400: ErrorResponse, 401: ErrorResponse, 403: ErrorResponse },
      },
    },
    async (request, reply) => {
      const created = await app.sites.register(request.body.hostname);
      return reply.status(201).send({ hostname: request.body.hostname, created });
    },
  );

  app.delete(
    '/v1/sites/:hostname',
    {
      preHandler: requireAdmin,
      schema: {
        summary: 'Unregister a site (admin token); its stored rows keep their hostname until they expire',
        params: Type.Object({ hostname: Hostname }),
        response: { 200: Type.Object({ hostname: Type.String(), removed: Type.Boolean() }), 400: ErrorResponse, 401: ErrorResponse, 403: ErrorResponse },
      },
    },
    async (request) => ({ hostname: request.params.hostname, removed: await app.sites.unregister(request.params.hostname) }),
  );
};

export default sites;
