/**
 * Security headers (@fastify/helmet) on every response: the CSP below, no framing, no MIME sniffing,
 * no referrer leaving the dashboard (a referrer would carry the page's query: filters, maybe a token).
 */
import helmet from '@fastify/helmet';
import type { FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';

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

const securityHeaders: FastifyPluginAsync = async (app) => {
  await app.register(helmet, {
    contentSecurityPolicy: { useDefaults: false, directives: CSP_DIRECTIVES },
    referrerPolicy: { policy: 'no-referrer' },
    // The extension fetches cross-origin with CORS; CORP only concerns no-cors loads.
    crossOriginResourcePolicy: { policy: 'same-site' },
  });
};

/** Not encapsulated: the headers go on every response. */
export default fp(securityHeaders, { name: 'security-headers' });
