/**
 * Security headers (helmet's set) on every response: the CSP below, no framing, no MIME sniffing,
 * no referrer leaving the dashboard (a referrer would carry the page's query: filters, maybe a token).
 *
 * The headers are the same for every request, so helmet computes them once, here, and each response
 * gets that one object. @fastify/helmet built a fresh helmet middleware (re-parsing the CSP) for every
 * request: ≈ 3 % of the ingest event loop in bench:ingest's profile.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import helmet, { type HelmetOptions } from 'helmet';

/**
 * The Content-Security-Policy for everything the collector serves — the one place to adjust it.
 *
 * - ECharts (dashboard) sets inline `style` attributes on the elements it creates and draws on canvas:
 *   `style-src 'unsafe-inline'` (styles only; scripts stay 'self'). The world map is data, not images.
 * - `data:` images: the inline favicon and ECharts' "save as image" / Swagger UI's inline SVG icons.
 * - Swagger UI at /docs loads its scripts and styles from the collector itself ('self'); it also injects
 *   `<style>` elements and uses `data:` SVG icons, which the two rules above allow. test/docs-browser.test.ts
 *   renders it in Chromium and fails on any CSP violation.
 * - `blob:` workers are not needed today; add `worker-src blob:` here if the dashboard ever uses them.
 */
const CSP_DIRECTIVES: Record<string, string[]> = {
  'default-src': ["'self'"],
  'script-src': ["'self'"],
  'style-src': ["'self'", "'unsafe-inline'"],
  'img-src': ["'self'", 'data:'],
  'font-src': ["'self'", 'data:'],
  'connect-src': ["'self'"],
  'object-src': ["'none'"],
  'base-uri': ["'self'"],
  'form-action': ["'self'"],
  'frame-ancestors': ["'none'"],
};

const OPTIONS: HelmetOptions = {
  contentSecurityPolicy: { useDefaults: false, directives: CSP_DIRECTIVES },
  referrerPolicy: { policy: 'no-referrer' },
  // The extension fetches cross-origin with CORS; CORP only concerns no-cors loads.
  crossOriginResourcePolicy: { policy: 'same-site' },
};

/** The headers helmet sets with OPTIONS (none of them depends on the request: no function directives). */
export function securityHeaderSet(options: HelmetOptions = OPTIONS): Record<string, string> {
  const headers: Record<string, string> = {};
  const res = {
    setHeader: (name: string, value: string) => void (headers[name.toLowerCase()] = value),
    removeHeader: () => undefined,
  } as unknown as ServerResponse;
  helmet(options)({} as IncomingMessage, res, (err?: unknown) => {
    if (err) throw err;
  });
  return headers;
}

const securityHeaders: FastifyPluginAsync = async (app) => {
  const headers = securityHeaderSet();
  app.addHook('onRequest', (_request, reply, done) => {
    reply.headers(headers);
    done();
  });
};

/** Not encapsulated: the headers go on every response. */
export default fp(securityHeaders, { name: 'security-headers' });
