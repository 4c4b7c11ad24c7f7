/**
 * Builds the collector: plugins, routes, one error handler. `server.ts` listens; tests use `app.inject`.
 */
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from './config';
import { createCountryLookup, type CountryLookup } from './geo/country';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { IngestPipeline } from './ingest/pipeline';
import { QUARANTINE_DIR } from './ingest/quarantine';
import { SiteRegistry } from './ingest/site-registry';
import { insertStatement } from './ingest/spool-format';
import { installErrorHandler } from './plugins/error-handler';
import { installCors } from './plugins/cors';
import { installMetrics } from './plugins/metrics';
import { scrapedCounter, scrapedGauge } from './metrics/scraped';
import { installRateLimit } from './plugins/rate-limit';
import { installSecurityHeaders } from './plugins/security-headers';
import { installUnderPressure } from './plugins/under-pressure';
import { installRequestBody } from './plugins/request-body';
import { openStore, prepareStore, type Store, type StoreStatus } from './plugins/store';
import { installAlerts } from './plugins/alerts';
import { installProbe } from './plugins/probe';
import type { ProbeScheduler } from './probe/scheduler';
import healthRoutes from './routes/health';
import handshakeRoutes from './routes/handshakes';
import siteRoutes from './routes/sites';
import probeTargetRoutes from './routes/probe-targets';
import readRoutes from './routes/read';
import { installDashboard } from './plugins/dashboard';
import { installDocs } from './plugins/docs';
import { validatorCompiler } from './schemas/validation';

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
    store: Store;
    storeStatus: StoreStatus;
    /** The durable ingest path: spool, flusher, duplicate check. */
    ingest: IngestPipeline;
    sites: SiteRegistry;
    countryOf: CountryLookup;
    /** Scheduled TLS configuration probes of the registered sites (plugins/probe.ts). */
    probes: ProbeScheduler;
  }
}

export interface AppOptions {
  /** Use this store instead of opening one from the configuration (closed by its owner). */
  store?: Store;
  countryOf?: CountryLookup;
  /** A pino destination for the logs (tests capture them to check that no IP is logged). */
  logStream?: NodeJS.WritableStream;
}

export async function buildApp(config: Config, options: AppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger:
      config.logLevel === 'silent'
        ? false
        : {
            level: config.logLevel,
            ...(options.logStream ? { stream: options.logStream } : {}),
            // Request logs carry method, route and status only: never the client address or the query.
            serializers: { req: (req) => ({ method: req.method }), res: (res) => ({ statusCode: res.statusCode }) },
          },
    // We log each request ourselves (onResponse below) with the route pattern, never the URL or address.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.inflatedLimitBytes,
    trustProxy: config.trustProxy,
    // Slow-loris: a request must arrive whole within this time, its headers within 10 s (at most); Node
    // checks both only every connectionsCheckingInterval, so that interval follows the timeout.
    requestTimeout: config.requestTimeoutMs,
    http: {
      headersTimeout: Math.min(10_000, config.requestTimeoutMs),
      connectionsCheckingInterval: Math.min(30_000, Math.max(100, Math.floor(config.requestTimeoutMs / 4))),
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  installErrorHandler(app);
  installRequestBody(app, config);
  installMetrics(app);
  // Hardening (issue 8): headers, CORS, per-address rate limit, load shedding — before any route.
  await installSecurityHeaders(app);
  await installCors(app, config.corsOrigins);
  await installRateLimit(app, config);
  await installUnderPressure(app, config);

  const ownsStore = !options.store;
  const store = options.store ?? openStore(config);
  const storeStatus = prepareStore(store, config, app.log);
  const sites = new SiteRegistry(store.query);
  const m = app.ingestMetrics;
  const ingest = new IngestPipeline({
    spoolDir: config.spoolDir,
    spoolMaxBytes: config.spoolMaxBytes,
    maxBufferedRows: config.maxBufferedRows,
    flushMaxRows: config.flushMaxRows,
    flushIntervalMs: config.flushIntervalMs,
    recentBatches: config.recentBatches,
    whenReady: storeStatus.whenReady,
    insert: async (content, token) => {
      // Rows as they were spooled, sent as is, under the columns the segment records. The ingest client does
      // nothing else after start-up: chDB keeps a query's settings for the session, and a stale token must not leak.
      const result = await store.ingest.exec({
        query: insertStatement(content),
        values: Readable.from([Buffer.from(content.rows)], { objectMode: false }),
        clickhouse_settings: { insert_deduplication_token: token, insert_deduplicate: 1 },
      });
      for await (const _ of result.stream) void _;
    },
    storedBatchIds: async (batchIds) => {
      // On the ingest client: the flusher is its only other user and runs one thing at a time.
      const rs = await store.ingest.query({
        query: 'SELECT DISTINCT toString(batchId) AS id FROM handshakes WHERE batchId IN {ids:Array(UUID)}',
        query_params: { ids: batchIds },
        format: 'JSONEachRow',
      });
      return new Set((await rs.json<{ id: string }>()).map((r) => r.id.toLowerCase()));
    },
    onFlushed: (segment, ms) => {
      m.flushDuration.observe(ms / 1000);
      m.rowsFlushed.inc({}, segment.rows);
      app.log.debug({ rows: segment.rows, ms: Math.round(ms) }, 'flushed');
    },
    onStoreError: (err, attempt, retryInMs) => {
      m.storeErrors.inc();
      app.log.error({ err: { message: (err as Error).message }, attempt, retryInMs }, 'insert failed; will retry');
    },
    quarantineAfterTries: config.spoolQuarantineAfterTries,
    onQuarantined: (segment, id, reason) => {
      app.log.error(
        { segment: id, rows: segment.rows, tries: reason.tries, err: { message: reason.error }, quarantine: join(config.spoolDir, QUARANTINE_DIR) },
        'the store refuses this spool segment for its content: moved to the quarantine (pnpm collector spool list)',
      );
    },
    onReplayAdopted: (segments) => app.log.warn({ segments: segments.length, rows: segments.reduce((n, s) => n + s.rows, 0) }, 'replaying segments put back from the quarantine'),
  });
  if (ingest.recovered.segments > 0) app.log.warn(ingest.recovered, 'replaying spool segments left by the previous run');
  if (ingest.recovered.quarantined.length > 0) {
    app.log.error({ segments: ingest.recovered.quarantined }, 'spool segments this release cannot read: moved to the quarantine (pnpm collector spool list)');
  }
  const registry = app.registry;
  scrapedGauge(registry, { name: 'tlsrum_spool_bytes', help: 'Bytes of accepted batches in the spool, not yet in the store.', read: () => ingest.spool.bytes });
  scrapedGauge(registry, { name: 'tlsrum_spool_rows', help: 'Records in the spool, not yet in the store.', read: () => ingest.size });
  scrapedGauge(registry, { name: 'tlsrum_spool_segments', help: 'Sealed spool segments waiting for the store.', read: () => ingest.spool.sealedCount });
  scrapedGauge(registry, { name: 'tlsrum_spool_oldest_age_seconds', help: 'Age of the oldest record in the spool.', read: () => ingest.spool.oldestAgeMs() / 1000 });
  scrapedGauge(registry, {
    name: 'tlsrum_spool_quarantined_segments',
    help: 'Spool segments the store refused for their content, waiting for an operator.',
    read: () => ingest.quarantinedSegments(),
  });
  scrapedGauge(registry, { name: 'tlsrum_spool_max_bytes', help: 'Spool cap: ingest answers 503 above it.', read: () => config.spoolMaxBytes });
  scrapedCounter(registry, {
    name: 'tlsrum_spool_fsyncs_total',
    help: 'Group commits: one fdatasync for every batch written in the round.',
    read: () => ingest.spool.fsyncs,
  });
  scrapedGauge(registry, {
    name: 'tlsrum_store_consecutive_failures',
    help: 'Failed inserts in a row (0 when the store is healthy).',
    read: () => ingest.flusher.consecutiveFailures,
  });

  app.decorate('config', config);
  app.decorate('store', store);
  app.decorate('storeStatus', storeStatus);
  app.decorate('ingest', ingest);
  app.decorate('sites', sites);
  app.decorate('countryOf', options.countryOf ?? createCountryLookup({ dbPath: config.geoipDb, overridesPath: config.geoipOverrides }));

  app.addHook('onResponse', async (request, reply) => {
    request.log.info(
      { method: request.method, route: request.routeOptions.url ?? 'unmatched', status: reply.statusCode, ms: Math.round(reply.elapsedTime) },
      'request',
    );
  });

  // Sites are needed before the first record is stored: wait for the store once it is ready.
  void storeStatus.whenReady.then(() => sites.start(60_000, (err) => app.log.error({ err: { message: (err as Error).message } }, 'site refresh failed')));

  app.addHook('onClose', async () => {
    storeStatus.stop();
    sites.stop();
    // Graceful shutdown drains the spool into the store; what a failing store leaves stays on disk and
    // is replayed at the next start, so nothing acknowledged is lost either way.
    await ingest.close(config.shutdownDrainMs);
    if (ingest.size > 0) app.log.warn({ rows: ingest.size }, 'shutdown before the store took every row: kept in the spool for the next start');
    if (ownsStore) await store.close();
  });

  await installDocs(app);
  await app.register(healthRoutes);
  await app.register(handshakeRoutes);
  await app.register(siteRoutes);
  await app.register(probeTargetRoutes);
  installAlerts(app);
  installProbe(app);
  await app.register(readRoutes);
  await installDashboard(app, config.dashboardDir);
  return app;
}
