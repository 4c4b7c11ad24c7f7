/**
 * Per-client-address rate limit on ingest (@fastify/rate-limit): RATE_LIMIT_PER_MINUTE requests a
 * minute, then 429 + Retry-After. Routes opt in with `config: { rateLimit: {} }`. The addresses live
 * only in the limiter's in-memory LRU (never logged or stored). 0 turns it off.
 */
import rateLimit from '@fastify/rate-limit';
import type { FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import { httpError } from './error-handler';

const rateLimitPlugin: FastifyPluginAsync = async (app) => {
  const perMinute = app.config.rateLimitPerMinute;
  if (perMinute <= 0) return;
  await app.register(rateLimit, {
    global: false,
    max: perMinute,
    timeWindow: 60_000,
    cache: 100_000,
    errorResponseBuilder: (_request, context) =>
      httpError(429, `rate limit: at most ${context.max} requests a minute from one address; retry in ${context.after}`),
  });
};

/** Not encapsulated: routes anywhere opt in with `config: { rateLimit: {} }`. */
export default fp(rateLimitPlugin, { name: 'rate-limit', decorators: { fastify: ['config'] } });
