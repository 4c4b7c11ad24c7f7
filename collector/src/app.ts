/**
 * Builds the collector as a list of plugin registrations; `server.ts` listens, tests use `app.inject`.
 * Order matters: the error handler, request bodies, metrics and the hardening plugins (security
 * headers, CORS, rate limit, load shedding) come before any route so that they cover all of them; the
 * store comes before what uses it, and is therefore closed after it (Fastify closes in reverse order);
 * the OpenAPI document comes before the routes it describes.
 */
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from './config';
import alerts from './plugins/alerts';
import cors from './plugins/cors';
import dashboard from './plugins/dashboard';
import docs from './plugins/docs';
import errorHandler from './plugins/error-handler';
import ingest from './plugins/ingest';
import metrics from './plugins/metrics';
import probe from './plugins/probe';
import profiles from './plugins/profiles';
import rateLimit from './plugins/rate-limit';
import requestBody from './plugins/request-body';
import requestLog from './plugins/request-log';
import securityHeaders from './plugins/security-headers';
import sites from './plugins/sites';
import store from './plugins/store';
import underPressure from './plugins/under-pressure';
import aboutRoutes from './routes/about';
import healthRoutes from './routes/health';
import handshakeRoutes from './routes/handshakes';
import beaconRoutes from './ingest/beacon/route';
import readRoutes from './routes/read';
import siteRoutes from './routes/sites';
import probeTargetRoutes from './routes/probe-targets';
import { validatorCompiler } from './schemas/validation';

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
  }
}
// The decorations the plugins declare, for packages that see this module through its .d.ts (where the
// plugins' default imports above, values only, are left out).
export type {} from './plugins/alerts';
export type {} from './plugins/ingest';
export type {} from './plugins/metrics';
export type {} from './plugins/probe';
export type {} from './plugins/profiles';
export type {} from './plugins/sites';
export type {} from './plugins/store';

export interface AppOptions {
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
    // plugins/request-log.ts logs each request with the route pattern, never the URL or address.
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
  app.decorate('config', config);

  await app.register(errorHandler);
  await app.register(requestLog);
  await app.register(requestBody);
  await app.register(metrics);
  await app.register(securityHeaders);
  await app.register(cors);
  await app.register(rateLimit);
  await app.register(underPressure);

  await app.register(store);
  await app.register(sites);
  await app.register(profiles);
  await app.register(ingest);
  await app.register(alerts);
  await app.register(probe);

  await app.register(docs);
  await app.register(healthRoutes);
  await app.register(aboutRoutes);
  await app.register(handshakeRoutes);
  await app.register(beaconRoutes);
  await app.register(siteRoutes);
  await app.register(probeTargetRoutes);
  await app.register(readRoutes);
  await app.register(dashboard);
  return app;
}
