/**
 * Serves the built dashboard (dashboard/dist) at `/`. Hashed assets are cached for a year, the page
 * itself is revalidated; a file goes out as the build's compressed copy when the browser accepts one.
 * Files are looked up when asked for, not listed at start: a dashboard built (or rebuilt, with new hashed
 * names) while the collector runs is served at the next reload. Until it is built, `/` says how to build it
 * instead of a 404.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync } from 'fastify';

const NOT_BUILT =
  '<!doctype html><title>tlsrum</title><p>The dashboard is not built. Run <code>pnpm --filter @tlsrum/dashboard build</code> (or <code>pnpm start</code>, which builds it) and reload.</p><p>API documentation: <a href="/docs">/docs</a></p>';

/** Encapsulated: nothing outside needs its static-file decorations. */
const dashboard: FastifyPluginAsync = async (app) => {
  const dir = app.config.dashboardDir;
  const index = join(dir, 'index.html');
  await app.register(fastifyStatic, {
    root: dir,
    prefix: '/',
    // One route for every file under the folder, found on disk when asked for (the page at `/` is below).
    wildcard: true,
    index: false,
    // The folder may not exist yet: `/` says so, not a warning in the log.
    suppressWarning: true,
    // The build writes a .br and a .gz copy beside each text file: the one the browser accepts is sent.
    preCompressed: true,
    // Our own cache headers (below), not the plugin's default max-age=0.
    cacheControl: false,
    setHeaders: (reply, path) => {
      reply.header('cache-control', path.includes('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
      // The guides the panels link to (guide/*.md): shown as text, not offered as a download.
      if (path.endsWith('.md')) reply.header('content-type', 'text/plain; charset=utf-8');
    },
  });
  app.get('/', { schema: { hide: true } }, async (_request, reply) =>
    existsSync(index)
      ? reply.sendFile('index.html')
      : reply.header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(NOT_BUILT),
  );
};

export default dashboard;
