/**
 * Metrics: one prom-client registry per app (`app.registry`: other plugins add their series with
 * `registers: [app.registry]`, or `scrapedGauge` for values read at scrape time), the collector's own
 * series (`app.ingestMetrics`), response counting, and `GET /metrics` in the Prometheus text format 0.0.4.
 * No default process collectors: only series someone acts on, and a per-app registry keeps apps built
 * side by side (tests) apart.
 */
import type { FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import { Registry } from 'prom-client';
import { collectorMetrics, type CollectorMetrics, type RejectReason } from './collector-metrics';

declare module 'fastify' {
  interface FastifyInstance {
    registry: Registry;
    ingestMetrics: CollectorMetrics;
  }
  interface FastifyRequest {
    /** Why an ingest request was not stored, when the status alone does not say (503, duplicate). */
    rejectReason?: RejectReason;
  }
}

const STATUS_REASON: Record<number, RejectReason> = { 400: 'invalid', 413: 'too_large', 415: 'unsupported', 429: 'rate_limited', 503: 'pressure' };

const metrics: FastifyPluginAsync = async (app) => {
  const registry = new Registry();
  const m = collectorMetrics(registry);
  app.decorate('registry', registry);
  app.decorate('ingestMetrics', m);
  app.decorateRequest('rejectReason', undefined);

  app.addHook('onResponse', async (request, reply) => {
    m.responses.inc({ status: String(reply.statusCode) });
    if (request.routeOptions.url !== '/v1/handshakes' || request.method !== 'POST') return;
    const reason = request.rejectReason ?? STATUS_REASON[reply.statusCode];
    if (reason) m.batchesRejected.inc({ reason });
  });

  app.get('/metrics', async (_request, reply) =>
    reply.header('content-type', registry.contentType).header('cache-control', 'no-store').send(await registry.metrics()),
  );
};

/** Not encapsulated: the registry is for every plugin, and every response is counted. */
export default fp(metrics, { name: 'metrics' });
