/**
 * Which site's data a request may read: without a token only every site together; the admin token any
 * site (or all); a site's read token that site. The shared rules of auth.ts.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { scopeOf, siteFor } from '../auth';

/** null = every site together. */
export async function readScope(app: FastifyInstance, request: FastifyRequest, requested: string | undefined): Promise<string | null> {
  return siteFor(await scopeOf(app, request), requested);
}
