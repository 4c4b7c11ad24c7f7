/**
 * Metrics: one prom-client registry per app (`app.registry`: other plugins add their series with
 * `registers: [app.registry]`, or `scrapedGauge` for values read at scrape time), the collector's own
 * series (`app.ingestMetrics`), response counting, and `GET /metrics` in the Prometheus text format 0.0.4.
 * Series about one site (its figures, its alerts, its probed hostnames) live in `app.siteRegistry` and are
 * served only to the admin token: without it `/metrics` says nothing `/v1/alerts` would refuse to say.
 * No default process collectors: only series someone acts on, and a per-app registry keeps apps built
 * side by side (tests) apart.
 */
import type { FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import { Registry } from 'prom-client';
import { scopeOf } from '../../sites/auth';
import { collectorMetrics, type CollectorMetrics, type RejectReason } from './collector-metrics';

declare module 'fastify' {
  interface FastifyInstance {
    registry: Registry;
    /** Series labelled with a site or a probed hostname: on `/metrics` only with the admin token. */
    siteRegistry: Registry;
    ingestMetrics: CollectorMetrics;
  }
  interface FastifyRequest {
    /** Why an ingest request was not stored, when the status alone does not say (503, duplicate). */
    rejectReason?: RejectReason;
  }
}

const STATUS_REASON: Record<number, RejectReason> = {
  400: 'invalid',
  401: 'unauthorized',
  403: 'forbidden',
  413: 'too_large',
  415: 'unsupported',
  429: 'rate_limited',
  503: 'pressure',
};

const metrics: FastifyPluginAsync = async (app) => {
  const registry = new Registry();
  const siteRegistry = new Registry();
  const m = collectorMetrics(registry);
  app.decorate('registry', registry);
  app.decorate('siteRegistry', siteRegistry);
  app.decorate('ingestMetrics', m);
  app.decorateRequest('rejectReason', undefined);

  app.addHook('onResponse', async (request, reply) => {
    m.responses.inc({ status: String(reply.statusCode) });
    if (request.routeOptions.url !== '/v1/handshakes' || request.method !== 'POST') return;
    const reason = request.rejectReason ?? STATUS_REASON[reply.statusCode];
    if (reason) m.batchesRejected.inc({ reason });
  });

  app.get('/metrics', async (request, reply) => {
    // A wrong token is refused (and counted) like on every route: /metrics is no oracle for guessing it.
    const admin = (await scopeOf(app, request)).kind === 'admin';
    const text = admin ? (await registry.metrics()) + (await siteRegistry.metrics()) : await registry.metrics();
    return reply
      .header('content-type', registry.contentType)
      .header('cache-control', 'no-store')
      .header('vary', 'authorization')
      .send(text);
  });
};

/** Not encapsulated: the registry is for every plugin, and every response is counted. */
export default fp(metrics, { name: 'metrics' });
