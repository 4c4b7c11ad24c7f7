/**
 * Builds the collector as a list of plugin registrations; `server.ts` listens, tests use `app.inject`.
 * Order matters: the error handler, request bodies, metrics and the hardening plugins (security
 * headers, CORS, rate limit, load shedding) come before any route so that they cover all of them; the
 * store comes before what uses it, and is therefore closed after it (Fastify closes in reverse order);
 * the OpenAPI document comes before the routes it describes.
 */
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { adminRoutesNotice, type Config } from './platform/config';
import alerts from './alerts/plugin';
import cors from './platform/http/cors';
import datasets from './datasets/plugin';
import dashboard from './platform/http/dashboard';
import docs from './platform/http/docs';
import errorHandler from './platform/http/error-handler';
import ingest from './ingest/plugin';
import metrics from './platform/metrics/plugin';
import probe from './probes/plugin';
import profiles from './sites/profiles/plugin';
import rateLimit from './platform/http/rate-limit';
import requestBody from './platform/http/request-body';
import requestLog from './platform/http/request-log';
import securityHeaders from './platform/http/security-headers';
import sites from './sites/plugin';
import claims, { claimRoutes } from './sites/claims/plugin';
import compaction from './platform/store/compaction';
import closedBuckets from './query/closed-buckets';
import store from './platform/store/plugin';
import underPressure from './platform/http/under-pressure';
import aboutRoutes from './platform/http/about';
import healthRoutes from './platform/http/health';
import handshakeRoutes from './ingest/route';
import beaconRoutes from './ingest/beacon/route';
import readRoutes from './query/routes/read';
import siteRoutes from './sites/route';
import probeTargetRoutes from './probes/targets-route';
import { validatorCompiler } from './platform/http/validation';

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
  }
}
// The decorations the plugins declare, for packages that see this module through its .d.ts (where the
// plugins' default imports above, values only, are left out).
export type {} from './alerts/plugin';
export type {} from './datasets/plugin';
export type {} from './ingest/plugin';
export type {} from './platform/metrics/plugin';
export type {} from './probes/plugin';
export type {} from './sites/profiles/plugin';
export type {} from './sites/plugin';
export type {} from './platform/store/plugin';

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
    // platform/http/request-log.ts logs each request with the route pattern, never the URL or address.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.inflatedLimitBytes,
    // A hop count or the proxies' addresses (platform/config.ts): the client address is the entry the trusted
    // proxies added, never the left-most X-Forwarded-For entry, which the client writes.
    trustProxy: config.trustProxy,
    // A keep-alive connection is closed after this many requests (0: never), so one client cannot keep a
    // connection forever; MAX_CONNECTIONS caps how many are open at once (below).
    maxRequestsPerSocket: config.maxRequestsPerSocket,
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
  app.log.info(adminRoutesNotice(config));
  // Connections beyond the cap are closed as they arrive (Node's server.maxConnections).
  if (config.maxConnections > 0) app.server.maxConnections = config.maxConnections;

  // Every API route refuses parameters it does not take (platform/http/validation.ts), those without any too.
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!route.url.startsWith('/v1/') || !methods.includes('GET')) return;
    route.schema ??= {};
    route.schema.querystring ??= { type: 'object', properties: {} };
  });
  await app.register(errorHandler);
  await app.register(requestLog);
  await app.register(requestBody);
  await app.register(metrics);
  await app.register(securityHeaders);
  await app.register(cors);
  await app.register(rateLimit);
  await app.register(underPressure);

  await app.register(store);
  await app.register(closedBuckets);
  await app.register(sites);
  await app.register(profiles);
  await app.register(ingest);
  await app.register(alerts);
  await app.register(probe);
  await app.register(claims);

  await app.register(docs);
  await app.register(healthRoutes);
  await app.register(aboutRoutes);
  await app.register(handshakeRoutes);
  await app.register(beaconRoutes);
  await app.register(siteRoutes);
  await app.register(claimRoutes);
  await app.register(probeTargetRoutes);
  await app.register(readRoutes);
  await app.register(datasets);
  await app.register(compaction);
  await app.register(dashboard);
  return app;
}
