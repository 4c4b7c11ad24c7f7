import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { publicSiteProfile } from '@tlsrum/shared';
import { adminOnly, newReadToken } from './auth';
import { checkHostnameForm } from './claims/hostname';
import { httpError } from '../platform/http/error-handler';
import { ErrorResponse } from '../platform/http/responses';
import { SiteProfileResponse } from './profiles/schema';

/**
 * Any string up to this length reaches the handler, which says in words what is wrong with it (a URL, a
 * path, a port) instead of the schema's pattern.
 */
const HostnameText = Type.String({
  maxLength: 1024,
  description: 'the bare hostname, e.g. shop.example.com (no scheme, path or port)',
});

function hostnameOr400(raw: string): string {
  const checked = checkHostnameForm(raw);
  if ('reason' in checked) throw httpError(400, checked.reason);
  return checked.hostname;
}

const sites: FastifyPluginAsyncTypebox = async (app) => {
  const requireAdmin = adminOnly(app);

  app.get(
    '/v1/sites',
    {
      schema: {
        summary: 'Registered site hostnames (the extension sends a hostname only for these) and their TLS profiles',
        description:
          'Each profile says what the site’s servers accept where its probes and reported records agree; the extension classifies with it (evidence `site-profile`). A site without a profile yet is absent from `profiles`.',
        response: {
          200: Type.Object({
            sites: Type.Array(Type.String()),
            profiles: Type.Record(Type.String(), SiteProfileResponse, { description: 'by hostname' }),
          }),
        },
      },
    },
    async (_request, reply) => {
      reply.header('cache-control', 'public, max-age=300');
      const profiles = app.profiles.all();
      const sites = app.sites.list();
      return {
        sites,
        profiles: Object.fromEntries(sites.flatMap((s) => (profiles[s] ? [[s, publicSiteProfile(profiles[s])]] : []))),
      };
    },
  );

  app.post(
    '/v1/sites',
    {
      preHandler: requireAdmin,
      schema: {
        summary: 'Register a site (admin token) and issue its read token',
        description:
          'Answers the read token once; only its SHA-256 is stored. Registering the same site again issues a new token and revokes the old one.',
        security: [{ bearer: [] }],
        body: Type.Object({ hostname: HostnameText }, { additionalProperties: false }),
        response: {
          201: Type.Object({
            hostname: Type.String(),
            created: Type.Boolean(),
            readToken: Type.String({ description: 'Bearer token that reads this site only (query API, dashboard).' }),
          }),
          400: ErrorResponse,
          401: ErrorResponse,
          403: ErrorResponse,
        },
      },
    },
    async (request, reply) => {
      const hostname = hostnameOr400(request.body.hostname);
      const { token, hash } = newReadToken();
      const created = await app.sites.register(hostname, hash);
      void app.profiles
        .refresh()
        .catch((err: Error) =>
          request.log.error({ err: { message: err.message } }, 'site profiles could not be built'),
        );
      reply.header('cache-control', 'no-store');
      return reply.status(201).send({ hostname, created, readToken: token });
    },
  );

  app.delete(
    '/v1/sites/:hostname',
    {
      preHandler: requireAdmin,
      schema: {
        summary: 'Unregister a site (admin token); its stored rows keep their hostname until they expire',
        security: [{ bearer: [] }],
        params: Type.Object({ hostname: HostnameText }),
        response: {
          200: Type.Object({ hostname: Type.String(), removed: Type.Boolean() }),
          400: ErrorResponse,
          401: ErrorResponse,
          403: ErrorResponse,
        },
      },
    },
    async (request) => {
      const hostname = hostnameOr400(request.params.hostname);
      return { hostname, removed: await app.sites.unregister(hostname) };
    },
  );
};

export default sites;
