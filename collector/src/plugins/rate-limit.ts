/**
 * Per-client-address rate limits (@fastify/rate-limit): RATE_LIMIT_PER_MINUTE requests a minute on
 * ingest, QUERY_RATE_LIMIT_PER_MINUTE on each read route, then 429 + Retry-After. Routes opt in with
 * `config: { rateLimit: ingestRateLimit(config) }` or `queryRateLimit(config)`; 0 turns a limit off.
 * The addresses live only in the limiter's in-memory LRU (never logged or stored); IPv6 counts per /64.
 */
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config';
import { httpError } from './error-handler';

type Limits = Pick<Config, 'rateLimitPerMinute' | 'queryRateLimitPerMinute'>;

export async function installRateLimit(app: FastifyInstance, limits: Limits): Promise<void> {
  if (limits.rateLimitPerMinute <= 0 && limits.queryRateLimitPerMinute <= 0) return;
  await app.register(rateLimit, {
    global: false,
    timeWindow: 60_000,
    cache: 100_000,
    errorResponseBuilder: (_request, context) =>
      httpError(429, `rate limit: at most ${context.max} requests a minute from one address; retry in ${context.after}`),
  });
}

const perMinute = (max: number) => (max > 0 ? { max, timeWindow: 60_000 } : false);

export const ingestRateLimit = (limits: Limits) => perMinute(limits.rateLimitPerMinute);
/** Each read route counts on its own: one dashboard view asks each route once or a few times. */
export const queryRateLimit = (limits: Limits) => perMinute(limits.queryRateLimitPerMinute);
