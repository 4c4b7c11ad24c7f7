/**
 * The registered sites' TLS profiles (sites/profiles/registry.ts): built once the store is ready, rebuilt every
 * few minutes and after every probe cycle, off the ingest path (the query client; ingest only reads the
 * in-memory claims).
 */
import type { FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import { SiteProfiles } from './registry';

declare module 'fastify' {
  interface FastifyInstance {
    profiles: SiteProfiles;
  }
}

/** Records arriving for a site change its profile slowly; probes trigger their own rebuild. */
export const PROFILE_REFRESH_MS = 5 * 60_000;

const profilesPlugin: FastifyPluginAsync = async (app) => {
  const profiles = new SiteProfiles(app.store.query, () => app.sites.list());
  app.decorate('profiles', profiles);
  const onError = (err: unknown) =>
    app.log.error({ err: { message: (err as Error).message } }, 'site profiles could not be built');
  void app.storeStatus.whenReady
    .then(() => app.sites.refresh())
    .then(() => profiles.start(PROFILE_REFRESH_MS, onError), onError);
  app.addHook('onClose', async () => profiles.stop());
};

/** Not encapsulated: the site routes, the ingest route and the probe plugin use `app.profiles`. */
export default fp(profilesPlugin, { name: 'profiles', dependencies: ['store', 'sites'] });
