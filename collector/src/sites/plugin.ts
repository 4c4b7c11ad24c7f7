/**
 * The registered sites (sites/registry.ts), read from the store once it is ready and refreshed every
 * minute: ingest keeps a record's hostname only for these, and read tokens are checked against them.
 */
import type { FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import { SiteHostnames } from './hostnames';
import { SiteRegistry } from './registry';
import { TokenFailures } from './token-failures';

declare module 'fastify' {
  interface FastifyInstance {
    sites: SiteRegistry;
    /** Failed token attempts per address (sites/token-failures.ts). */
    tokenFailures: TokenFailures;
    /** Each site's own and extra hostnames, which its beacon may report (sites/hostnames.ts). */
    siteHostnames: SiteHostnames;
  }
}

const REFRESH_MS = 60_000;
/** Addresses whose failed token attempts are remembered (≈ 100 bytes each). */
const TOKEN_FAILURE_ADDRESSES = 100_000;

const sitesPlugin: FastifyPluginAsync = async (app) => {
  const sites = new SiteRegistry(app.store.query);
  app.decorate('sites', sites);
  app.decorate('siteHostnames', new SiteHostnames(app.store.query));
  app.decorate(
    'tokenFailures',
    new TokenFailures({ perHour: app.config.tokenFailuresPerHour, maxEntries: TOKEN_FAILURE_ADDRESSES }),
  );
  void app.storeStatus.whenReady.then(() =>
    sites.start(REFRESH_MS, (err) =>
      app.log.error({ err: { message: (err as Error).message } }, 'site refresh failed'),
    ),
  );
  app.addHook('onClose', async () => sites.stop());
};

/** Not encapsulated: the ingest and beacon routes, the site and probe-target routes and the read scope use it. */
export default fp(sitesPlugin, { name: 'sites', dependencies: ['store'] });
