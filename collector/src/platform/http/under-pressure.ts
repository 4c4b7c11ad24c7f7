/**
 * Load shedding (@fastify/under-pressure): when the event loop lags more than MAX_EVENT_LOOP_DELAY_MS
 * or the V8 heap exceeds MAX_HEAP_USED_BYTES, requests are answered 503 + Retry-After instead of
 * queueing up until everything times out. Health, readiness and metrics are always answered, so the
 * operator can see why. Each limit is off at 0.
 */
import underPressure from '@fastify/under-pressure';
import type { FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import { Counter } from 'prom-client';
import { httpError } from './error-handler';

const ALWAYS_ANSWERED = new Set(['/healthz', '/readyz', '/metrics']);
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
      if (ALWAYS_ANSWERED.has(request.routeOptions.url ?? '')) return;
      shed.inc({ type: String(type) });
      request.rejectReason = 'pressure';
      throw httpError(503, 'the collector is overloaded; retry later', { 'retry-after': String(PRESSURE_RETRY_AFTER_S) });
    },
  });
};

/** Not encapsulated: load shedding covers every route (its own exceptions above). */
export default fp(underPressurePlugin, { name: 'under-pressure', dependencies: ['metrics'], decorators: { fastify: ['config'] } });
