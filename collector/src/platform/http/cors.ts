/**
 * CORS only for configured origins (CORS_ORIGINS): the extension's origin — `chrome-extension://<id>`
 * (the id is fixed by the extension's key) or `moz-extension://*` (Firefox gives every installation a
 * random UUID, so it cannot be listed; a listed UUID works too) — and a dashboard served elsewhere.
 * The dashboard served by the collector itself is same-origin and needs none. Any other origin gets
 * no CORS headers, so browsers keep its pages from reading our answers.
 */
import cors from '@fastify/cors';
import type { FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';

const MOZ_ANY = /^moz-extension:\/\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const CHROME_ANY = /^chrome-extension:\/\/[a-p]{32}$/;

export function originMatcher(allowed: readonly string[]): (origin: string | undefined) => boolean {
  const exact = new Set(allowed.filter((o) => !o.endsWith('://*')));
  const anyMoz = allowed.includes('moz-extension://*');
  const anyChrome = allowed.includes('chrome-extension://*');
  return (origin) => {
    if (!origin) return false;
    const o = origin.toLowerCase();
    return exact.has(o) || (anyMoz && MOZ_ANY.test(o)) || (anyChrome && CHROME_ANY.test(o));
  };
}

const corsPlugin: FastifyPluginAsync = async (app) => {
  const ok = originMatcher(app.config.corsOrigins);
  await app.register(cors, {
    // Reflect the request's origin only when it is allowed (never `*`).
    origin: (origin, cb) => cb(null, ok(origin)),
    methods: ['GET', 'POST', 'DELETE', 'OPTIONS'],
    allowedHeaders: ['content-type', 'content-encoding', 'authorization'],
    exposedHeaders: ['retry-after'],
    maxAge: 600,
    strictPreflight: true,
  });
};

/** Not encapsulated: preflights and CORS headers for every route. */
export default fp(corsPlugin, { name: 'cors', decorators: { fastify: ['config'] } });
