/**
 * Builds the collector: plugins, routes, one error handler. `server.ts` listens; tests use `app.inject`.
 */
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from './config';
import { createCountryLookup, type CountryLookup } from './geo/country';
import { RecentBatches } from './ingest/recent-batches';
import { SiteRegistry } from './ingest/site-registry';
import { WriteBuffer } from './ingest/write-buffer';
import { installErrorHandler } from './plugins/error-handler';
import { installRequestBody } from './plugins/request-body';
import { openStore, prepareStore, type Store, type StoreStatus } from './plugins/store';
import healthRoutes from './routes/health';
import handshakeRoutes from './routes/handshakes';
import siteRoutes from './routes/sites';
import summaryRoutes from './routes/summary';
import { validatorCompiler } from './schemas/validation';

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
    store: Store;
    storeStatus: StoreStatus;
    writeBuffer: WriteBuffer;
    recentBatches: RecentBatches;
    sites: SiteRegistry;
    countryOf: CountryLookup;
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
    // Slow-loris: a request must arrive whole within this time.
    requestTimeout: 30_000,
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  installErrorHandler(app);
  installRequestBody(app, config);

  const ownsStore = !options.store;
  const store = options.store ?? openStore(config);
  const storeStatus = prepareStore(store, config, app.log);
  const sites = new SiteRegistry(store.query);
  const writeBuffer = new WriteBuffer({
    client: store.ingest,
    flushIntervalMs: config.flushIntervalMs,
    flushMaxRows: config.flushMaxRows,
    maxBufferedRows: config.maxBufferedRows,
    onFlushed: (rows, ms) => app.log.debug({ rows, ms }, 'flushed'),
    onError: (err, attempt) => app.log.error({ err: { message: (err as Error).message }, attempt }, 'insert failed; will retry'),
  });

  app.decorate('config', config);
  app.decorate('store', store);
  app.decorate('storeStatus', storeStatus);
  app.decorate('writeBuffer', writeBuffer);
  app.decorate('recentBatches', new RecentBatches());
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
    await writeBuffer.close();
    if (writeBuffer.size > 0) app.log.error({ rows: writeBuffer.size }, 'shutdown with rows not flushed');
    if (ownsStore) await store.close();
  });

  await app.register(healthRoutes);
  await app.register(handshakeRoutes);
  await app.register(summaryRoutes);
  await app.register(siteRoutes);
  return app;
}
