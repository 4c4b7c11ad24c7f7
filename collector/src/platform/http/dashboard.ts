/**
 * Serves the built dashboard (dashboard/dist) at `/`. Hashed assets are cached for a year, the page
 * itself is revalidated; a file goes out as the build's compressed copy when the browser accepts one.
 * When the dashboard has not been built, `/` says how to build it instead of a 404.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync } from 'fastify';

/** Encapsulated: nothing outside needs its static-file decorations. */
const dashboard: FastifyPluginAsync = async (app) => {
  const dir = app.config.dashboardDir;
  if (!existsSync(join(dir, 'index.html'))) {
    app.get('/', { schema: { hide: true } }, async (_request, reply) =>
      reply
        .type('text/html; charset=utf-8')
        .send(
          '<!doctype html><title>tlsrum</title><p>The dashboard is not built. Run <code>pnpm --filter @tlsrum/dashboard build</code> (or <code>pnpm start</code>, which builds it) and reload.</p><p>API documentation: <a href="/docs">/docs</a></p>',
        ),
    );
    return;
  }
  await app.register(fastifyStatic, {
    root: dir,
    prefix: '/',
    wildcard: false,
    index: ['index.html'],
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
};

export default dashboard;
