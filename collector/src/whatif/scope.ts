/**
 * Which site's data a request may read: without a token only every site together; the admin token any
 * site (or all); a site's read token that site (once read tokens exist: plugins/auth.ts).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { httpError } from '../plugins/error-handler';

const digest = (s: string) => createHash('sha256').update(s).digest();

/** null = every site together. */
export async function readScope(app: FastifyInstance, request: FastifyRequest, requested: string | undefined): Promise<string | null> {
  const h = request.headers.authorization;
  const token = h?.startsWith('Bearer ') ? h.slice(7).trim() : '';
  if (!token) {
    if (requested !== undefined) throw httpError(401, "reading one site's data needs that site's read token");
    return null;
  }
  const admin = app.config.adminToken;
  if (admin && timingSafeEqual(digest(token), digest(admin))) return requested ?? null;
  throw httpError(401, 'unknown or revoked token');
}
