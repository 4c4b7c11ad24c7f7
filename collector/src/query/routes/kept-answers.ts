/**
 * The read routes' kept answers (query/answer-cache.ts) as hooks: a preHandler, after the scope is
 * resolved, that answers from the cache when it holds this question for this scope; and an onSend that
 * keeps a fresh 200 answer that found something. A served answer carries `Age` (seconds since it was
 * worked out). The same question asked again while the first asking is still being worked out (two viewers
 * opening the dashboard together) waits for that answer instead of asking the store a second time.
 *
 * An answer past its time to live but within ANSWER_STALE_SECONDS is served at once, and the collector asks
 * the question again itself, once, behind it (an `inject` of the same request, with the reader's token, so it
 * passes every check the reader's did): the next reader gets the fresh answer. That request is marked by a
 * random nonce this process issued for that refresh alone, valid while it runs (`BackgroundRefreshes`), so
 * no outsider can skip the kept answers or the read rate limit by sending the header; the reader's own
 * request already counted against that limit. Its queries run as background work (read.ts, query-pool.ts):
 * one slot and one thread at most, after any reader's.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AnswerCache, type KeptAnswer } from '../answer-cache';
import { scrapedCounter, scrapedGauge } from '../../platform/metrics/scraped';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set when this request's answer may be kept: its cache key. */
    answerKey: string | null;
    /** Set on the request working out a question others may wait for: tells them it is over. */
    answerDone: (() => void) | null;
    /** Set when this request's answer is the one kept under this key (served from it, or just kept). */
    keptKey: string | null;
  }
}

/**
 * An answer that found nothing is not kept: a site owner who has just added the beacon sees its first
 * records on the next reload, not a minute later. Handlers call this with whether they found anything.
 */
export function keepOnlyIfFound(request: FastifyRequest, found: boolean): void {
  if (!found) request.answerKey = null;
}

const REFRESH_HEADER = 'x-tlsrum-refresh';

/** The collector's own background refreshes of stale answers: each request carries a nonce issued here. */
export class BackgroundRefreshes {
  private readonly pending = new Set<string>();

  issue(): string {
    const nonce = randomUUID();
    this.pending.add(nonce);
    return nonce;
  }

  forget(nonce: string): void {
    this.pending.delete(nonce);
  }

  /** Whether `request` is one of these refreshes (its nonce is still pending). */
  owns(request: FastifyRequest): boolean {
    const nonce = request.headers[REFRESH_HEADER];
    return typeof nonce === 'string' && this.pending.has(nonce);
  }
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

function sendKept(request: FastifyRequest, reply: FastifyReply, key: string, kept: KeptAnswer): FastifyReply {
  request.keptKey = key;
  for (const [name, value] of Object.entries(kept.headers)) reply.header(name, value);
  reply.header('age', String(Math.floor((Date.now() - kept.at) / 1000)));
  return reply.send(kept.body);
}

/** The compressed copies of the answer a request sends, when that answer is kept (compressed-answers.ts). */
export interface KeptEncodings {
  get(request: FastifyRequest, body: string, coding: string): Buffer | undefined;
  set(request: FastifyRequest, body: string, coding: string, encoded: Buffer): void;
}

export function installAnswerCache(app: FastifyInstance, refreshes: BackgroundRefreshes): KeptEncodings {
  const cache = new AnswerCache(
    app.config.answerCacheSeconds * 1000,
    app.config.answerCacheBytes,
    Date.now,
    app.config.answerStaleSeconds * 1000,
  );
  /** Answers served kept (fresh or stale), and answers worked out: for /metrics and tests. */
  const counts = { hit: 0, stale: 0, miss: 0 };
  /** Questions being worked out now, by key: settled once that request's response is over. */
  const working = new Map<string, Promise<void>>();
  /** Keys whose stale answer is being refreshed, and those refreshes (awaited before the app closes). */
  const refreshing = new Set<string>();
  const inFlight = new Set<Promise<void>>();
  app.decorateRequest('answerKey', null);
  app.decorateRequest('answerDone', null);
  app.decorateRequest('keptKey', null);
  scrapedCounter(app.registry, {
    name: 'tlsrum_answer_cache_total',
    help: 'Read answers served from the kept answers (hit), served past their time to live while refreshed (stale), or worked out (miss); ANSWER_CACHE_SECONDS, ANSWER_STALE_SECONDS.',
    labelNames: ['result'],
    read: () => [
      [{ result: 'hit' }, counts.hit],
      [{ result: 'stale' }, counts.stale],
      [{ result: 'miss' }, counts.miss],
    ],
  });
  scrapedGauge(app.registry, {
    name: 'tlsrum_answer_cache_bytes',
    help: 'Memory held by kept read answers (at most ANSWER_CACHE_BYTES).',
    read: () => cache.heldBytes,
  });
  const encodings: KeptEncodings = {
    get: (request, body, coding) => (request.keptKey ? cache.getEncoded(request.keptKey, body, coding) : undefined),
    set: (request, body, coding, encoded) => {
      if (request.keptKey) cache.setEncoded(request.keptKey, body, coding, encoded);
    },
  };
  if (!cache.enabled) return encodings;

  /** Asks the reader's question again behind its stale answer, once per key at a time. */
  const refreshLater = (request: FastifyRequest, key: string): void => {
    if (refreshing.has(key) || working.has(key)) return;
    refreshing.add(key);
    const nonce = refreshes.issue();
    const authorization = request.headers.authorization;
    const run = app
      .inject({
        method: 'GET',
        url: request.url,
        headers: { [REFRESH_HEADER]: nonce, ...(authorization ? { authorization } : {}) },
      })
      .then(
        (res) => {
          if (res.statusCode !== 200)
            app.log.warn({ url: request.routeOptions.url, status: res.statusCode }, 'refreshing a kept answer failed');
        },
        (err: unknown) => app.log.warn({ err, url: request.routeOptions.url }, 'refreshing a kept answer failed'),
      )
      .finally(() => {
        refreshes.forget(nonce);
        refreshing.delete(key);
        inFlight.delete(run);
      });
    inFlight.add(run);
  };
  app.addHook('preClose', async () => {
    await Promise.allSettled([...inFlight]);
  });

  app.addHook('preHandler', async (request, reply) => {
    if (!request.routeOptions.config.read?.cache) return;
    const key = answerKey(request, app.sites.version);
    // The collector's own refresh works the answer out afresh, whatever is kept.
    const isRefresh = refreshes.owns(request);
    let kept = isRefresh ? undefined : cache.get(key);
    if (!kept && !isRefresh) {
      const stale = cache.getStale(key);
      if (stale) {
        counts.stale++;
        refreshLater(request, key);
        return sendKept(request, reply, key, stale);
      }
    }
    const inWork = working.get(key);
    if (!kept && inWork && !isRefresh) {
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
    return sendKept(request, reply, key, kept);
  });

  app.addHook('onSend', async (request, reply, payload) => {
    if (request.answerKey && reply.statusCode === 200 && typeof payload === 'string') {
      const headers: Record<string, string> = {};
      for (const name of KEPT_HEADERS) {
        const value = reply.getHeader(name);
        if (value !== undefined) headers[name] = String(value);
      }
      cache.set(request.answerKey, payload, headers);
      request.keptKey = request.answerKey;
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
  return encodings;
}
