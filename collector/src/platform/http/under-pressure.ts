/**
 * Load shedding (@fastify/under-pressure): when the event loop lags more than MAX_EVENT_LOOP_DELAY_MS
 * or the V8 heap exceeds MAX_HEAP_USED_BYTES, writes (ingest, registration) are answered 503 + Retry-After
 * instead of queueing up until everything times out; the senders retry from their durable queues. Reads
 * are never shed here: the dashboard's files, health, readiness and metrics are always answered, and the
 * read routes are bounded by the query pool's own queue (platform/store/query-pool.ts), which says "busy"
 * only when the query path itself is saturated. Each limit is off at 0.
 */
import underPressure from '@fastify/under-pressure';
import type { FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import { Counter } from 'prom-client';
import { httpError } from './error-handler';

/** What pressure never refuses: reading (files, health, queries) and the preflights before a write. */
const SHED_ONLY = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
export const PRESSURE_RETRY_AFTER_S = 10;

const underPressurePlugin: FastifyPluginAsync = async (app) => {
  const limits = app.config;
  if (limits.maxEventLoopDelayMs <= 0 && limits.maxHeapUsedBytes <= 0) return;
  const shed = new Counter({
    name: 'tlsrum_pressure_rejections_total',
    help: 'Requests answered 503 under memory or event-loop pressure.',
    labelNames: ['type'] as const,
    registers: [app.registry],
  });
  await app.register(underPressure, {
    maxEventLoopDelay: limits.maxEventLoopDelayMs,
    maxHeapUsedBytes: limits.maxHeapUsedBytes,
    retryAfter: PRESSURE_RETRY_AFTER_S,
    pressureHandler: async (request, _reply, type) => {
      if (!SHED_ONLY.has(request.method)) return;
      shed.inc({ type: String(type) });
      request.rejectReason = 'pressure';
      throw httpError(503, 'the collector is overloaded; retry later', {
        'retry-after': String(PRESSURE_RETRY_AFTER_S),
      });
    },
  });
};

/** Not encapsulated: load shedding covers every route (its own exceptions above). */
export default fp(underPressurePlugin, {
  name: 'under-pressure',
  dependencies: ['metrics'],
  decorators: { fastify: ['config'] },
});
