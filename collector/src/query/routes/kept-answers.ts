/**
 * The read routes' kept answers (query/answer-cache.ts) as two hooks: a preHandler, after the scope is
 * resolved, that answers from the cache when it holds this question for this scope; and an onSend that
 * keeps a fresh 200 answer that found something. A served answer carries `Age` (seconds since it was
 * worked out).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AnswerCache } from '../answer-cache';
import { scrapedCounter, scrapedGauge } from '../../platform/metrics/scraped';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set when this request's answer may be kept: its cache key. */
    answerKey: string | null;
  }
}

/**
 * An answer that found nothing is not kept: a site owner who has just added the beacon sees its first
 * records on the next reload, not a minute later. Handlers call this with whether they found anything.
 */
export function keepOnlyIfFound(request: FastifyRequest, found: boolean): void {
  if (!found) request.answerKey = null;
}

/** The headers a kept answer is served with, as its first sending set them. */
const KEPT_HEADERS = ['content-type', 'cache-control', 'vary'] as const;

/** Everything an answer depends on, in a fixed order (query parameters sorted by name). */
function answerKey(request: FastifyRequest, registryVersion: number): string {
  const { site, from, to, minSites, owner } = request.scope;
  const query = Object.entries((request.query ?? {}) as Record<string, unknown>).sort(([a], [b]) =>
    a < b ? -1 : a > b ? 1 : 0,
  );
  return JSON.stringify([request.routeOptions.url, site, from, to, minSites, owner, registryVersion, query]);
}

export function installAnswerCache(app: FastifyInstance): void {
  const cache = new AnswerCache(app.config.answerCacheSeconds * 1000, app.config.answerCacheBytes);
  app.decorateRequest('answerKey', null);
  scrapedCounter(app.registry, {
    name: 'tlsrum_answer_cache_total',
    help: 'Read answers served from the kept answers (hit) or worked out (miss); ANSWER_CACHE_SECONDS.',
    labelNames: ['result'],
    read: () => [
      [{ result: 'hit' }, cache.counts.hit],
      [{ result: 'miss' }, cache.counts.miss],
    ],
  });
  scrapedGauge(app.registry, {
    name: 'tlsrum_answer_cache_bytes',
    help: 'Memory held by kept read answers (at most ANSWER_CACHE_BYTES).',
    read: () => cache.heldBytes,
  });
  if (!cache.enabled) return;

  app.addHook('preHandler', async (request, reply) => {
    if (!request.routeOptions.config.read?.cache) return;
    const key = answerKey(request, app.sites.version);
    const kept = cache.get(key);
    if (!kept) {
      request.answerKey = key;
      return;
    }
    for (const [name, value] of Object.entries(kept.headers)) reply.header(name, value);
    reply.header('age', String(Math.floor((Date.now() - kept.at) / 1000)));
    return reply.send(kept.body);
  });

  app.addHook('onSend', async (request, reply, payload) => {
    if (request.answerKey && reply.statusCode === 200 && typeof payload === 'string') {
      const headers: Record<string, string> = {};
      for (const name of KEPT_HEADERS) {
        const value = reply.getHeader(name);
        if (value !== undefined) headers[name] = String(value);
      }
      cache.set(request.answerKey, payload, headers);
    }
    return payload;
  });
}
