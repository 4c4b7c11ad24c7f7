/**
 * The /v1 read routes in one encapsulated plugin: its preHandler hook (read-scope.ts) resolves each
 * request's scope — token, site, time range, store ready — before the route runs, by the rule the route
 * declares in `config.read`. Their store queries share a bounded pool (platform/store/query-pool.ts); the
 * answers of the routes that allow it are kept briefly and served again (kept-answers.ts); answers go out
 * compressed to a client that accepts it (compressed-answers.ts).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { readRateLimit } from '../../platform/http/rate-limit';
import { installReadScope } from './read-scope';
import { BackgroundRefreshes, installAnswerCache } from './kept-answers';
import { installAnswerCompression } from './compressed-answers';
import { backgroundQuery, querySignal } from '../../platform/store/query-pool';
import alertRoutes from '../../alerts/route';
import probeRoutes from '../../probes/route';
import compareRoutes from './compare';
import mapRoutes from './map';
import phasesRoutes from './phases';
import summaryRoutes from './summary';
import timeseriesRoutes from './timeseries';
import whatifRoutes from '../../whatif/route';

const readRoutes: FastifyPluginAsyncTypebox = async (app) => {
  // Anyone may ask most of these: one budget per address for all of them, checked before anything else.
  // The collector's own refresh of a stale kept answer is not counted: the reader's request that caused it was.
  const refreshes = new BackgroundRefreshes();
  const limit = readRateLimit(app, app.config, (request) => refreshes.owns(request));
  if (limit) app.addHook('onRequest', limit);
  // A reader that goes away takes its waiting queries with it: they are dropped before they run. The
  // collector's own refresh of a kept answer has no reader waiting: its queries yield to readers'.
  app.addHook('onRequest', (request, reply, done) => {
    const gone = new AbortController();
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) gone.abort(new Error('the client went away'));
    });
    const run = () => querySignal.run(gone.signal, done);
    if (refreshes.owns(request)) backgroundQuery.run(true, run);
    else run();
  });
  installReadScope(app);
  // After the scope: a kept answer is served only once the reader's token has been checked.
  installAnswerCompression(app, installAnswerCache(app, refreshes));
  await app.register(summaryRoutes);
  await app.register(alertRoutes);
  await app.register(probeRoutes);
  await app.register(whatifRoutes);
  await app.register(compareRoutes);
  await app.register(timeseriesRoutes);
  await app.register(mapRoutes);
  await app.register(phasesRoutes);
};

export default readRoutes;
