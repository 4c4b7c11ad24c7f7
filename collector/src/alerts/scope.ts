/**
 * Who may read which site's alerts. Alerts are per site, so there is no public view: the admin token
 * reads every site (or one with `?site=`), a site's read token only that site.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { httpError } from '../plugins/error-handler';

const digest = (s: string) => createHash('sha256').update(s).digest();

/** The site to list (null = every site, admin only). */
export async function alertScope(app: FastifyInstance, request: FastifyRequest, requested: string | undefined): Promise<string | null> {
  const h = request.headers.authorization;
  const token = h?.startsWith('Bearer ') ? h.slice(7).trim() : '';
  if (!token) throw httpError(401, "alerts need the site's read token or the admin token");
  const admin = app.config.adminToken;
  if (admin && timingSafeEqual(digest(token), digest(admin))) return requested ?? null;
  throw httpError(401, 'unknown or revoked token');
}
