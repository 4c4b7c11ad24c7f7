/**
 * Kept answers (real embedded store, `app.inject`): the same question from a reader of the same scope is
 * answered again from memory, saying its age, and never across scopes — not from a token holder to a reader
 * without one, not to a revoked token, not past a registration change — and an answer that found nothing is
 * not kept. The cache itself (time to live, byte bound) is tested with a clock of its own below.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { QueryAnswer } from '@tlsrum/shared/query/schemas';
import { AnswerCache } from '../../src/query/answer-cache';
import { COMPRESS_MIN_BYTES, installAnswerCompression } from '../../src/query/routes/compressed-answers';
import { makeBatch, makeRecords, metricValue, postBatch, removeDir, startApp, type TestApp } from '../support/helpers';

const ADMIN = 'admin-token-for-kept-answers';
const SITE = 'www.example.com';
const HOUR = 3_600_000;

let t: TestApp;
let siteToken = '';
// One fixed range for every question, as the dashboard asks (its ranges are whole hours or days).
const to = Math.ceil(Date.now() / 60_000) * 60_000 + 60_000;
const from = to - 6 * HOUR;
const range = `from=${from}&to=${to}`;

async function register(hostname: string): Promise<string> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/v1/sites',
    payload: { hostname },
    headers: { authorization: `Bearer ${ADMIN}` },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<{ readToken: string }>().readToken;
}

async function store(n: number, site: string | null, tag: string, app = t.app): Promise<void> {
  const res = await postBatch(app, makeBatch(makeRecords(n, { site, clientToken: `${tag}-client` }, n)));
  expect(res.statusCode, res.body).toBe(202);
  await app.ingest.flush();
}

function ask(url: string, token?: string) {
  return t.app.inject({ method: 'GET', url, headers: token ? { authorization: `Bearer ${token}` } : {} });
}

const records = (body: string) =>
  JSON.parse(body).cells.reduce((n: number, c: QueryAnswer['cells'][number]) => n + (c.records ?? 0), 0) as number;

async function cacheCount(result: 'hit' | 'stale' | 'miss', app = t.app): Promise<number> {
  const metrics = (await app.inject({ method: 'GET', url: '/metrics' })).body;
  return metricValue(metrics, `tlsrum_answer_cache_total{result="${result}"}`) ?? 0;
}

describe('kept answers', () => {
  beforeAll(async () => {
    // Two sites per public cell: a reader without a token sees less of one site's records than the admin.
    t = await startApp({ ADMIN_TOKEN: ADMIN, ANSWER_CACHE_SECONDS: '600', MIN_SITES_PER_CELL: '2' });
    siteToken = await register(SITE);
  });
  afterAll(async () => {
    await t.close();
    removeDir(t.dataDir);
  });

  it('an answer that found nothing is not kept: the first records show on the next question', async () => {
    const url = `/v1/compare?${range}&dimensions=stack`;
    const empty = await ask(url);
    expect(empty.statusCode).toBe(200);
    expect(JSON.parse(empty.body).cells).toEqual([]);
    await store(3, null, 'first');
    const found = await ask(url);
    expect(found.headers.age).toBeUndefined();
    expect(records(found.body)).toBe(3);
  });

  it('the same question again is answered as it was first sent, with its Age, without a new query', async () => {
    const url = `/v1/compare?${range}&dimensions=stack,mode`;
    const first = await ask(url);
    expect(first.statusCode).toBe(200);
    expect(first.headers.age).toBeUndefined();
    const hitsBefore = await cacheCount('hit');
    const runBefore = t.app.store.queryPool.counts.run;
    // Records stored meanwhile are not in the kept answer: it is at most ANSWER_CACHE_SECONDS old.
    await store(2, null, 'meanwhile');
    const runAfterStoring = t.app.store.queryPool.counts.run;
    const again = await ask(url);
    expect(again.statusCode).toBe(200);
    expect(again.body).toBe(first.body);
    expect(Number(again.headers.age)).toBeGreaterThanOrEqual(0);
    expect(again.headers['content-type']).toBe(first.headers['content-type']);
    expect(again.headers['cache-control']).toBe(first.headers['cache-control']);
    expect(t.app.store.queryPool.counts.run).toBe(runAfterStoring);
    expect(runAfterStoring).toBeGreaterThanOrEqual(runBefore);
    expect(await cacheCount('hit')).toBe(hitsBefore + 1);
    // Another question is worked out afresh and sees the new records.
    const other = await ask(`/v1/compare?${range}&dimensions=mode,stack`);
    expect(other.headers.age).toBeUndefined();
    expect(records(other.body)).toBe(records(first.body) + 2);
  });

  it('an answer kept for the admin is never served to a reader without a token (other scope, other rule)', async () => {
    await store(4, SITE, 'site');
    const url = `/v1/map?${range}`;
    const admin = await ask(url, ADMIN);
    expect(records(admin.body)).toBeGreaterThan(0);
    const anyone = await ask(url);
    expect(anyone.headers.age).toBeUndefined();
    expect(anyone.body).not.toBe(admin.body);
    // And the reverse: the public answer, now kept, is not the admin's either.
    const adminAgain = await ask(url, ADMIN);
    expect(adminAgain.body).toBe(admin.body);
    expect(JSON.parse(anyone.body).cells.every((c: { suppressed?: boolean }) => c.suppressed)).toBe(true);
  });

  it('a revoked read token reads no kept answer (401), and its site’s new token reads afresh after the change', async () => {
    const old = siteToken;
    const url = `/v1/compare?${range}&dimensions=mode`;
    const first = await ask(url, old);
    expect(first.statusCode).toBe(200);
    expect((await ask(url, old)).headers.age).toBeDefined();
    // Registering the hostname again replaces its token: the old one is refused before any kept answer.
    const fresh = await register(SITE);
    expect((await ask(url, old)).statusCode).toBe(401);
    const withNew = await ask(url, fresh);
    expect(withNew.statusCode).toBe(200);
    expect(withNew.headers.age).toBeUndefined();
  });

  it('a registration change starts every answer afresh (all-sites answers name registered hostnames only)', async () => {
    const url = `/v1/compare?${range}&dimensions=browser`;
    await ask(url, ADMIN);
    expect((await ask(url, ADMIN)).headers.age).toBeDefined();
    await register('shop.example.org');
    expect((await ask(url, ADMIN)).headers.age).toBeUndefined();
  });

  it('the same question asked twice at once is worked out once: the second asker waits for the first answer', async () => {
    const url = `/v1/compare?${range}&dimensions=country`;
    const runBefore = t.app.store.queryPool.counts.run;
    const one = await ask(`/v1/compare?${range}&dimensions=country,mode`);
    expect(one.statusCode).toBe(200);
    const perAnswer = t.app.store.queryPool.counts.run - runBefore;
    expect(perAnswer).toBeGreaterThan(0);
    const before = t.app.store.queryPool.counts.run;
    const [a, b] = await Promise.all([ask(url), ask(url)]);
    expect(a.statusCode).toBe(200);
    expect(b.body).toBe(a.body);
    expect(t.app.store.queryPool.counts.run - before).toBe(perAnswer);
    expect([a.headers.age, b.headers.age].filter((age) => age !== undefined)).toHaveLength(1);
  });

  it('the what-if is kept like the cells', async () => {
    const url = `/v1/whatif?${range}`;
    const first = await ask(url, ADMIN);
    expect(first.statusCode, first.body).toBe(200);
    expect(JSON.parse(first.body).connections).toBeGreaterThan(0);
    const again = await ask(url, ADMIN);
    expect(again.headers.age).toBeDefined();
    expect(again.body).toBe(first.body);
  });

  describe('compressed for the reader', () => {
    beforeAll(() => store(5, null, 'compressed'));

    const askAccepting = (url: string, acceptEncoding: string) =>
      t.app.inject({
        method: 'GET',
        url,
        headers: { authorization: `Bearer ${ADMIN}`, 'accept-encoding': acceptEncoding },
      });
    const heldBytes = async () =>
      metricValue((await t.app.inject({ method: 'GET', url: '/metrics' })).body, 'tlsrum_answer_cache_bytes')!;

    it('goes out as brotli, else gzip, to a client that accepts it: the same JSON; as it is to one that does not', async () => {
      const url = `/v1/whatif?${range}`;
      const plain = await ask(url, ADMIN);
      expect(plain.statusCode, plain.body).toBe(200);
      expect(plain.body.length).toBeGreaterThan(COMPRESS_MIN_BYTES);
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.headers.vary).toMatch(/accept-encoding/i);
      const br = await askAccepting(url, 'gzip, deflate, br');
      expect(br.headers['content-encoding']).toBe('br');
      expect(br.headers.vary).toMatch(/accept-encoding/i);
      expect(brotliDecompressSync(br.rawPayload).toString()).toBe(plain.body);
      expect(br.rawPayload.length).toBeLessThan(plain.body.length / 3);
      const gz = await askAccepting(url, 'gzip;q=1, br;q=0.5');
      expect(gz.headers['content-encoding']).toBe('gzip');
      expect(gunzipSync(gz.rawPayload).toString()).toBe(plain.body);
      for (const refused of ['identity', 'br;q=0, gzip;q=0', 'deflate']) {
        const res = await askAccepting(url, refused);
        expect(res.headers['content-encoding'], refused).toBeUndefined();
        expect(res.body, refused).toBe(plain.body);
      }
    });

    it('an answer under COMPRESS_MIN_BYTES goes as it is', async () => {
      const small = await askAccepting(
        `/v1/compare?from=${from - 48 * HOUR}&to=${from - 24 * HOUR}&dimensions=stack`,
        'br',
      );
      expect(small.statusCode, small.body).toBe(200);
      expect(small.body.length).toBeLessThan(COMPRESS_MIN_BYTES);
      expect(small.headers['content-encoding']).toBeUndefined();
    });

    it("a kept answer keeps its compressed copy, counted in the kept answers' memory: the next reader gets it without compressing again", async () => {
      const url = `/v1/whatif?${range}&limit=1000`;
      const first = await askAccepting(url, 'br');
      expect(first.headers['content-encoding']).toBe('br');
      expect(first.headers.age).toBeUndefined();
      const held = await heldBytes();
      const again = await askAccepting(url, 'br');
      expect(again.headers.age).toBeDefined();
      expect(again.headers['content-encoding']).toBe('br');
      expect(Buffer.compare(again.rawPayload, first.rawPayload)).toBe(0);
      expect(await heldBytes()).toBe(held);
      // Another coding of the same kept answer is made once, and counted.
      const gz = await askAccepting(url, 'gzip');
      expect(gz.headers['content-encoding']).toBe('gzip');
      expect(await heldBytes()).toBe(held + gz.rawPayload.length);
    });

    it('sends the kept compressed copy as it is, and compresses only what has none', async () => {
      const app = Fastify();
      const body = JSON.stringify({ text: 'answer '.repeat(300) });
      const keptCopy = Buffer.from('the kept copy');
      const made: string[] = [];
      installAnswerCompression(app, {
        get: (request, sent, coding) =>
          request.url === '/kept' && sent === body && coding === 'br' ? keptCopy : undefined,
        set: (_request, _sent, coding) => void made.push(coding),
      });
      app.get('/kept', async (_request, reply) => reply.type('application/json').send(body));
      app.get('/fresh', async (_request, reply) => reply.type('application/json').send(body));
      try {
        const kept = await app.inject({ url: '/kept', headers: { 'accept-encoding': 'br' } });
        expect(kept.headers['content-encoding']).toBe('br');
        expect(kept.rawPayload.toString()).toBe('the kept copy');
        expect(made).toEqual([]);
        const fresh = await app.inject({ url: '/fresh', headers: { 'accept-encoding': 'br' } });
        expect(brotliDecompressSync(fresh.rawPayload).toString()).toBe(body);
        expect(made).toEqual(['br']);
      } finally {
        await app.close();
      }
    });
  });
});

describe('kept answers off', () => {
  it('ANSWER_CACHE_SECONDS=0 keeps nothing', async () => {
    const off = await startApp({ ANSWER_CACHE_SECONDS: '0' });
    try {
      await postBatch(off.app, makeBatch(makeRecords(2)));
      await off.app.ingest.flush();
      const url = `/v1/compare?${range}`;
      await off.app.inject({ method: 'GET', url });
      const again = await off.app.inject({ method: 'GET', url });
      expect(again.statusCode).toBe(200);
      expect(again.headers.age).toBeUndefined();
    } finally {
      await off.close();
      removeDir(off.dataDir);
    }
  });
});

describe('kept answers past their time to live (ANSWER_STALE_SECONDS)', () => {
  let s: TestApp;
  const url = `/v1/compare?${range}&dimensions=stack`;
  const askS = (headers: Record<string, string> = {}) => s.app.inject({ method: 'GET', url, headers });
  const storeS = (n: number, tag: string) => store(n, null, tag, s.app);
  beforeAll(async () => {
    // Fresh for one second, then served stale for ten minutes; one reader may ask four times a minute.
    s = await startApp({ ANSWER_CACHE_SECONDS: '1', ANSWER_STALE_SECONDS: '600', QUERY_RATE_LIMIT_PER_MINUTE: '4' });
    // The collector's own start-up read (the per-client cap's counts) is background work too: done before counting.
    await s.app.clientCapSeeded;
  });
  afterAll(async () => {
    await s.close();
    removeDir(s.dataDir);
  });

  it('a stale answer is served at once, refreshed once behind it (uncounted by the rate limit), and the next reader gets the fresh one', async () => {
    await storeS(3, 'old');
    const pool = s.app.store.queryPool.counts;
    const backgroundBefore = pool.background;
    const first = await askS();
    expect(records(first.body)).toBe(3);
    expect(pool.background).toBe(backgroundBefore); // the first reader's own queries were a reader's
    await storeS(2, 'new');
    await sleep(1100); // past the one-second time to live
    const missesBefore = await cacheCount('miss', s.app);
    // Three readers at once past the time to live: each gets the kept answer, saying its age, at once.
    const stale = await Promise.all([askS(), askS(), askS()]);
    for (const r of stale) {
      expect(r.statusCode).toBe(200);
      expect(records(r.body)).toBe(3);
      expect(Number(r.headers.age)).toBeGreaterThanOrEqual(1);
    }
    expect(await cacheCount('stale', s.app)).toBe(3);
    // One refresh was worked out behind them, though the reader's four requests a minute are spent.
    await vi.waitFor(async () => expect(await cacheCount('miss', s.app)).toBe(missesBefore + 1), { timeout: 20_000 });
    expect((await askS()).statusCode).toBe(429);
    // The refresh's queries ran as background work: one slot and one thread, after any reader's (query-pool.ts).
    await vi.waitFor(() => expect(pool.background).toBeGreaterThan(backgroundBefore), { timeout: 20_000 });
    // What the refresh keeps holds the new records: readers from other addresses get it without new work.
    let address = 0;
    await vi.waitFor(
      async () => {
        const other = await s.app.inject({ method: 'GET', url, remoteAddress: `127.0.1.${++address}` });
        expect(other.statusCode).toBe(200);
        expect(records(other.body)).toBe(5);
      },
      { timeout: 20_000 },
    );
    expect(await cacheCount('miss', s.app)).toBe(missesBefore + 1);
  });

  it('a request naming a refresh it was not given is an ordinary reader: served the stale answer, not a fresh one', async () => {
    // Another question and another reader's address (the first test spent 127.0.0.1's budget).
    const modeUrl = `/v1/compare?${range}&dimensions=mode`;
    const ask2 = (headers: Record<string, string> = {}) =>
      s.app.inject({ method: 'GET', url: modeUrl, headers, remoteAddress: '127.0.0.3' });
    expect(records((await ask2()).body)).toBe(5);
    await storeS(4, 'later');
    await sleep(1100);
    const staleBefore = await cacheCount('stale', s.app);
    const spoofed = await ask2({ 'x-tlsrum-refresh': '00000000-0000-4000-8000-000000000000' });
    expect(records(spoofed.body)).toBe(5);
    expect(spoofed.headers.age).toBeDefined();
    expect(await cacheCount('stale', s.app)).toBe(staleBefore + 1);
    // The collector's own refresh then replaces it: the next reader sees the new records. Each look is another
    // reader's (127.0.0.3 may ask four times a minute, and the refresh may take longer than two looks).
    let address = 0;
    await vi.waitFor(
      async () => {
        const other = await s.app.inject({ method: 'GET', url: modeUrl, remoteAddress: `127.0.2.${++address}` });
        expect(other.statusCode).toBe(200);
        expect(records(other.body)).toBe(9);
      },
      { timeout: 20_000 },
    );
  });
});

describe('the answer cache', () => {
  it('serves an answer until its time to live is over, then never again', () => {
    let now = 1_000_000;
    const cache = new AnswerCache(60_000, 1 << 20, () => now);
    cache.set('a', '{"x":1}', {});
    now += 59_999;
    expect(cache.get('a')?.body).toBe('{"x":1}');
    now += 1;
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
    expect(cache.heldBytes).toBe(0);
  });

  it('after its time to live, an answer is only served stale, for the stale window, then dropped', () => {
    let now = 1_000_000;
    const cache = new AnswerCache(60_000, 1 << 20, () => now, 30_000);
    cache.set('a', '{"x":1}', {});
    now += 59_999;
    expect(cache.get('a')?.body).toBe('{"x":1}');
    expect(cache.getStale('a')).toBeUndefined();
    now += 1;
    expect(cache.get('a')).toBeUndefined();
    expect(cache.getStale('a')?.body).toBe('{"x":1}');
    now += 29_999;
    expect(cache.getStale('a')?.body).toBe('{"x":1}');
    now += 1;
    expect(cache.getStale('a')).toBeUndefined();
    expect(cache.size).toBe(0);
    expect(cache.heldBytes).toBe(0);
  });

  it('holds at most its byte budget, dropping the oldest first; an answer over the budget is not kept', () => {
    const cache = new AnswerCache(60_000, 100, () => 0);
    const body = 'x'.repeat(20); // 2 × (1 + 20) = 42 bytes with its one-character key
    cache.set('a', body, {});
    cache.set('b', body, {});
    expect(cache.heldBytes).toBe(84);
    cache.set('c', body, {});
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('b')?.body).toBe(body);
    expect(cache.get('c')?.body).toBe(body);
    expect(cache.heldBytes).toBe(84);
    cache.set('d', 'y'.repeat(60), {});
    expect(cache.get('d')).toBeUndefined();
    expect(cache.size).toBe(2);
  });

  it("keeps an answer's compressed copies within its byte budget, only beside the answer they were made from", () => {
    const cache = new AnswerCache(60_000, 100, () => 0);
    const body = 'x'.repeat(20); // 42 bytes with its one-character key
    cache.set('a', body, {});
    cache.setEncoded('a', body, 'br', Buffer.alloc(10));
    expect(cache.heldBytes).toBe(52);
    expect(cache.getEncoded('a', body, 'br')).toHaveLength(10);
    expect(cache.getEncoded('a', body, 'gzip')).toBeUndefined();
    // A copy of another body (the answer was replaced meanwhile) is neither served nor kept.
    expect(cache.getEncoded('a', 'y'.repeat(20), 'br')).toBeUndefined();
    cache.setEncoded('a', 'y'.repeat(20), 'gzip', Buffer.alloc(5));
    expect(cache.heldBytes).toBe(52);
    // Over the budget with b's copy: the oldest answer goes, with its copies.
    cache.set('b', body, {});
    cache.setEncoded('b', body, 'br', Buffer.alloc(10));
    expect(cache.get('a')).toBeUndefined();
    expect(cache.heldBytes).toBe(52);
    // A new answer under the same key drops the old one's copies.
    cache.set('b', 'z'.repeat(20), {});
    expect(cache.getEncoded('b', 'z'.repeat(20), 'br')).toBeUndefined();
    expect(cache.heldBytes).toBe(42);
  });
});
