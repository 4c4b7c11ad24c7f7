/**
 * Per-client-address rate limits (@fastify/rate-limit): RATE_LIMIT_PER_MINUTE requests a minute on
 * ingest (`config: { rateLimit: ingestRateLimit(config) }`), QUERY_RATE_LIMIT_PER_MINUTE on the read
 * routes together (`readRateLimit`, the read routes' hook), then 429 + Retry-After; 0 turns a limit off.
 * The addresses live only in the limiter's in-memory LRU (never logged or stored); IPv6 counts per /64.
 */
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyPluginAsync, FastifyRequest, onRequestHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from '../config';
import { httpError } from './error-handler';

type Limits = Pick<Config, 'rateLimitPerMinute' | 'queryRateLimitPerMinute'>;

const rateLimitPlugin: FastifyPluginAsync = async (app) => {
  const limits = app.config;
  if (limits.rateLimitPerMinute <= 0 && limits.queryRateLimitPerMinute <= 0) return;
  await app.register(rateLimit, {
    global: false,
    timeWindow: 60_000,
    cache: 100_000,
    errorResponseBuilder: (_request, context) =>
      httpError(
        429,
        `rate limit: at most ${context.max} requests a minute from one address; retry in ${context.after}`,
      ),
  });
};

/** Not encapsulated: routes anywhere opt in (the two helpers below). */
export default fp(rateLimitPlugin, { name: 'rate-limit', decorators: { fastify: ['config'] } });

const perMinute = (max: number) => (max > 0 ? { max, timeWindow: 60_000 } : false);

export const ingestRateLimit = (limits: Limits) => perMinute(limits.rateLimitPerMinute);

/**
 * One counter per address for every read route of `app` (null when QUERY_RATE_LIMIT_PER_MINUTE is 0);
 * `exempt` names the collector's own requests, which no address sent.
 */
export function readRateLimit(
  app: FastifyInstance,
  limits: Limits,
  exempt: (request: FastifyRequest) => boolean = () => false,
): onRequestHookHandler | null {
  const limit = perMinute(limits.queryRateLimitPerMinute);
  return limit ? app.rateLimit({ ...limit, groupId: 'read', allowList: exempt }) : null;
}
