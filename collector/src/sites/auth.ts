/**
 * Bearer tokens, one helper for both kinds: the admin token from the configuration (site registration,
 * every site's data) and per-site read tokens (that site's data only). Read tokens are stored as their
 * SHA-256; every comparison is constant-time and runs over every candidate, so neither the response
 * time nor an early exit tells how much of a token matched or which site it belongs to.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { httpError } from '../platform/http/error-handler';

export type Scope = { kind: 'admin' } | { kind: 'site'; site: string } | { kind: 'public' };

/** The token of an `Authorization: Bearer …` header, if any. */
export function bearer(request: FastifyRequest): string | undefined {
  const h = request.headers.authorization;
  return h?.startsWith('Bearer ') ? h.slice(7).trim() || undefined : undefined;
}

export function hashToken(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

/** Constant-time comparison of a token with the expected one (hashing equalises lengths). */
export function tokenMatches(given: string | undefined, expected: string | null): boolean {
  if (!expected || !given) return false;
  return timingSafeEqual(hashToken(given), hashToken(expected));
}

/** A new read token (256 random bits) and the hex SHA-256 to store. */
export function newReadToken(): { token: string; hash: string } {
  const token = `tlsrum_rt_${randomBytes(32).toString('base64url')}`;
  return { token, hash: hashToken(token).toString('hex') };
}

/** Which of `hashes` (hex SHA-256) the token matches, comparing against all of them. */
export function matchTokenHash(token: string, hashes: Iterable<[string, string]>): string | null {
  const given = hashToken(token);
  let found: string | null = null;
  for (const [key, hex] of hashes) {
    if (hex.length !== 64) continue;
    if (timingSafeEqual(given, Buffer.from(hex, 'hex')) && found === null) found = key;
  }
  return found;
}

/** 429 while the request's address has failed too many token attempts (sites/token-failures.ts). */
function refuseIfLocked(app: FastifyInstance, request: FastifyRequest): void {
  const wait = app.tokenFailures.lockedFor(request.ip);
  if (wait > 0)
    throw httpError(429, `too many wrong tokens from this address; retry in ${wait} seconds`, {
      'retry-after': String(wait),
    });
}

/**
 * Who is asking: 401 for a token that is neither the admin token nor a site's read token (counted as a
 * failed attempt of the address; `unknown` is what the 401 says), 429 once the address has failed too often.
 */
export async function scopeOf(
  app: FastifyInstance,
  request: FastifyRequest,
  unknown = 'unknown or revoked token',
): Promise<Scope> {
  const token = bearer(request);
  if (!token) return { kind: 'public' };
  refuseIfLocked(app, request);
  if (tokenMatches(token, app.config.adminToken)) return { kind: 'admin' };
  const site = await app.sites.siteForToken(token);
  if (site) return { kind: 'site', site };
  app.tokenFailures.fail(request.ip);
  throw httpError(401, unknown);
}

/**
 * Whose records an ingest request carries: undefined without a token (anyone's); with a site's read token,
 * that site (its owner's own runs). 401 for a token that is no site's read token (counted as a failed
 * attempt of the address), 403 for the admin token (it belongs to no site), 429 once the address has
 * failed too often.
 */
export async function ownerOfBatch(app: FastifyInstance, request: FastifyRequest): Promise<string | undefined> {
  const scope = await scopeOf(
    app,
    request,
    "unknown or revoked read token: send your site's current read token (the one registration gave you), or no token at all",
  );
  if (scope.kind === 'public') return undefined;
  if (scope.kind === 'admin')
    throw httpError(
      403,
      "the admin token belongs to no site: send a site's own synthetic runs with that site's read token, other records without a token",
    );
  return scope.site;
}

/**
 * The site a query may read: the admin any site or all; a read token its own site; without a token
 * only the aggregate over all sites (null = every site, unregistered ones included).
 */
export function siteFor(scope: Scope, requested: string | undefined): string | null {
  if (scope.kind === 'admin') return requested ?? null;
  if (scope.kind === 'site') {
    if (requested !== undefined && requested !== scope.site)
      throw httpError(403, `this token reads ${scope.site} only`);
    return scope.site;
  }
  if (requested !== undefined) throw httpError(401, `reading one site's data needs that site's read token`);
  return null;
}

/**
 * A preHandler admitting only the admin token: 403 while registration is off (no ADMIN_TOKEN), 401
 * otherwise; a token that is no token at all (not a site's read token either) counts as a failed attempt.
 */
export function adminOnly(app: FastifyInstance): (request: FastifyRequest) => Promise<void> {
  return async (request) => {
    if (!app.config.adminToken) throw httpError(403, 'site registration is disabled: set ADMIN_TOKEN');
    const token = bearer(request);
    if (token) refuseIfLocked(app, request);
    if (tokenMatches(token, app.config.adminToken)) return;
    if (token && !(await app.sites.siteForToken(token))) app.tokenFailures.fail(request.ip);
    throw httpError(401, 'admin token required');
  };
}
