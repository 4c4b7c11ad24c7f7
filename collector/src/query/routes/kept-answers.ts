/**
 * The read routes' kept answers (query/answer-cache.ts) as hooks: a preHandler, after the scope is
 * resolved, that answers from the cache when it holds this question for this scope; and an onSend that
 * keeps a fresh 200 answer that found something. A served answer carries `Age` (seconds since it was
 * worked out). The same question asked again while the first asking is still being worked out (two viewers
 * opening the dashboard together) waits for that answer instead of asking the store a second time.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AnswerCache } from '../answer-cache';
import { scrapedCounter, scrapedGauge } from '../../platform/metrics/scraped';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set when this request's answer may be kept: its cache key. */
    answerKey: string | null;
    /** Set on the request working out a question others may wait for: tells them it is over. */
    answerDone: (() => void) | null;
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
  /** Answers served kept, and answers worked out: for /metrics and tests. */
  const counts = { hit: 0, miss: 0 };
  /** Questions being worked out now, by key: settled once that request's response is over. */
  const working = new Map<string, Promise<void>>();
  app.decorateRequest('answerKey', null);
  app.decorateRequest('answerDone', null);
  scrapedCounter(app.registry, {
    name: 'tlsrum_answer_cache_total',
    help: 'Read answers served from the kept answers (hit) or worked out (miss); ANSWER_CACHE_SECONDS.',
    labelNames: ['result'],
    read: () => [
      [{ result: 'hit' }, counts.hit],
      [{ result: 'miss' }, counts.miss],
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
    let kept = cache.get(key);
    const inWork = working.get(key);
    if (!kept && inWork) {
      await inWork;
      kept = cache.get(key);
    }
    if (!kept) {
      counts.miss++;
      request.answerKey = key;
      if (!working.has(key)) {
        let settle = () => {};
        working.set(key, new Promise<void>((resolve) => (settle = resolve)));
        request.answerDone = () => {
          working.delete(key);
          settle();
        };
      }
      return;
    }
    counts.hit++;
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

  // Sent, failed or abandoned: whoever waits for this answer reads the cache (or works it out) now.
  const over = async (request: FastifyRequest) => {
    const done = request.answerDone;
    request.answerDone = null;
    done?.();
  };
  app.addHook('onResponse', over);
  app.addHook('onRequestAbort', over);
}
