/**
 * The site's own beacon on the collector: `GET /beacon.js` serves the script (built from the beacon
 * package at start; cached briefly and revalidated by its content-hash ETag, since the URL carries no
 * version; loadable by other sites' pages), and `POST /v1/beacon` takes one page view's connections.
 *
 * A page view is stored only for a registered site whose hostname (or an extra hostname registered for it)
 * is the host of the request's `Origin`: the page cannot read the answer (sendBeacon), so the collector
 * decides from `Origin` and the body alone. The records then take the ingest path of every record
 * (ingest/submit.ts, the steps of ingest/steps.ts): plausibility, rate limit, token budget, per-client cap, spool.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { buildServedScript } from '@tlsrum/beacon/build';
import { BEACON_MAX_BYTES, BEACON_PATH } from '@tlsrum/shared';
import { httpError } from '../../platform/http/error-handler';
import { ingestRateLimit } from '../../platform/http/rate-limit';
import { ErrorResponse } from '../../platform/http/responses';
import { normalizeSite } from '../hostname';
import { submitBatch } from '../submit';
import { BeaconBodySchema, refuseForeignFields } from './body';
import { BeaconIdentity } from './identity';
import { environmentOf, pageViewBatch } from './records';

/** How long a browser or proxy may use /beacon.js before asking again (then usually a 304). */
export const BEACON_SCRIPT_MAX_AGE_S = 300;

const beacon: FastifyPluginAsyncTypebox = async (app) => {
  const script = await buildServedScript();
  const identity = new BeaconIdentity();

  // Only here: every other route takes JSON only. sendBeacon sends a string as text/plain (no preflight).
  app.addContentTypeParser('text/plain', { parseAs: 'string', bodyLimit: BEACON_MAX_BYTES }, (_request, text, done) => {
    try {
      done(null, JSON.parse(text as string));
    } catch {
      done(httpError(400, 'body is not valid JSON'), undefined);
    }
  });

  app.get(
    '/beacon.js',
    { schema: { summary: "The site beacon's script, for the tag on a site's pages (docs/beacon.md)", hide: false } },
    async (request, reply) => {
      reply
        .header('content-type', 'text/javascript; charset=utf-8')
        .header('cache-control', `public, max-age=${BEACON_SCRIPT_MAX_AGE_S}`)
        .header('etag', script.etag)
        // Loaded by other sites' pages: the default `same-site` would make browsers block it, and a tag
        // with an integrity hash fetches it with CORS.
        .header('cross-origin-resource-policy', 'cross-origin')
        .header('access-control-allow-origin', '*');
      const match = request.headers['if-none-match'];
      if (match && match.split(',').some((t) => t.trim().replace(/^W\//, '') === script.etag))
        return reply.status(304).send();
      return reply.send(script.code);
    },
  );

  app.post(
    BEACON_PATH,
    {
      schema: {
        summary: "Submit one page view's new TLS connections from the site's beacon (text/plain JSON; docs/beacon.md)",
        body: BeaconBodySchema,
        response: {
          202: Type.Object({
            accepted: Type.Integer(),
            duplicate: Type.Optional(Type.Boolean()),
            leftOut: Type.Object({ otherHost: Type.Integer(), notNew: Type.Integer() }),
          }),
          400: ErrorResponse,
          403: ErrorResponse,
          413: ErrorResponse,
          415: ErrorResponse,
          429: ErrorResponse,
          503: ErrorResponse,
        },
      },
      config: { rateLimit: ingestRateLimit(app.config) },
      preValidation: async (request) => {
        const type = String(request.headers['content-type'] ?? '').toLowerCase();
        if (!type.startsWith('text/plain'))
          throw httpError(415, 'send the beacon body as text/plain (what navigator.sendBeacon sends for a string)');
        refuseForeignFields(request.body);
      },
    },
    async (request, reply) => {
      const body = request.body;
      const origin = originHost(request.headers.origin);
      const site = normalizeSite(body.site);
      if (site === null)
        throw httpError(400, 'body/site must be a hostname (letters, digits, hyphens, dots; no address, port or path)');
      if (!app.storeStatus.ready)
        throw httpError(503, 'the collector cannot take more records now; retry later', { 'retry-after': '5' });
      if (!app.sites.has(site))
        throw httpError(403, `site "${site}" is not registered on this collector: register it first (docs/beacon.md)`);
      const hosts = await app.siteHostnames.of(site, origin);
      if (!hosts.has(origin)) {
        throw httpError(
          403,
          `the page's origin "${origin}" is neither site "${site}" nor an extra hostname registered for it: beacons are taken only from the site's own pages`,
        );
      }
      const now = Date.now();
      const { batch, leftOut, entryOf } = pageViewBatch({
        body: { ...body, site },
        hostnames: hosts,
        env: environmentOf(request.headers),
        // The address goes into this keyed hash and no further.
        clientToken: identity.tokenFor(site, request.ip),
        profile: app.profiles.get(site),
        now,
      });
      if (!batch) return reply.status(202).send({ accepted: 0, leftOut });
      const result = await submitBatch(app, request, batch, { recordPath: (i) => `body/entries/${entryOf[i]}` });
      return reply.status(202).send({ ...result, leftOut });
    },
  );
};

/** The host of an https `Origin` header, or a 403 saying why the page's origin is unusable. */
function originHost(origin: string | string[] | undefined): string {
  if (typeof origin !== 'string' || origin === '')
    throw httpError(
      403,
      'no Origin header: a beacon is taken only from a page of a registered site, which browsers name in Origin',
    );
  if (origin === 'null') {
    throw httpError(
      403,
      'the page hides its origin (Origin: null, e.g. from Referrer-Policy: no-referrer): a beacon is taken only from a page whose origin is known',
    );
  }
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    throw httpError(403, 'the Origin header is not an origin');
  }
  if (url.protocol !== 'https:')
    throw httpError(403, 'the page is not served over HTTPS: a beacon measures TLS connections of https pages only');
  const host = normalizeSite(url.hostname);
  if (host === null) throw httpError(403, 'the Origin header names no hostname (an address is not a site)');
  return host;
}

export default beacon;
