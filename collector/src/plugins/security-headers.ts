/**
 * Security headers (@fastify/helmet) on every response: CSP from csp.ts, no framing, no MIME sniffing,
 * no referrer leaving the dashboard (a referrer would carry the page's query: filters, maybe a token).
 */
import helmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';
import { CSP_DIRECTIVES } from './csp';

export async function installSecurityHeaders(app: FastifyInstance): Promise<void> {
  await app.register(helmet, {
    contentSecurityPolicy: { useDefaults: false, directives: CSP_DIRECTIVES },
    referrerPolicy: { policy: 'no-referrer' },
    // The extension fetches cross-origin with CORS; CORP only concerns no-cors loads.
    crossOriginResourcePolicy: { policy: 'same-site' },
  });
}
