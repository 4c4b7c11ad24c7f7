/**
 * Who may read which site's alerts. Alerts are per site, so there is no public view: the admin token
 * reads every site (or one with `?site=`), a site's read token only that site (auth.ts).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { scopeOf, siteFor } from '../auth';
import { httpError } from '../plugins/error-handler';

/** The site to list (null = every site, admin only). */
export async function alertScope(app: FastifyInstance, request: FastifyRequest, requested: string | undefined): Promise<string | null> {
  const scope = await scopeOf(app, request);
  if (scope.kind === 'public') throw httpError(401, "alerts need the site's read token or the admin token");
  return siteFor(scope, requested);
}
