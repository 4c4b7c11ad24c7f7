/**
 * The read side under load, on the real embedded store: queries run side by side in a bounded pool, each
 * under a time limit; a full queue answers "busy" at once; a reader that leaves takes its waiting queries
 * with it; and pressure from ingest never refuses the dashboard's files, health or reads.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import errorHandler from '../../src/platform/http/error-handler';
import {
  backgroundQuery,
  heavyQuery,
  QueryBusyError,
  querySignal,
  type QueryTiming,
} from '../../src/platform/store/query-pool';
import { openStore } from '../../src/platform/store/clients';
import { queryCells } from '../../src/query/cells';
import {
  insertRecords,
  makeBatch,
  makeRecords,
  metricValue,
  postBatch,
  removeDir,
  tempDir,
  withApp,
} from '../support/helpers';

/** A query the store cannot finish within any limit used here: it ends by its time limit. */
const HEAVY = 'SELECT count() FROM numbers(100000000000) WHERE sipHash64(number) = 0';
const LIGHT = 'SELECT 1 AS one';
const HEAVY_BOUND = 'SELECT count() FROM numbers({rows:UInt64}) WHERE sipHash64(number) = {zero:UInt64}';
const LIGHT_BOUND = 'SELECT {one:UInt8} AS one';

function poolStore(size: number, queueMax: number, timeoutMs = 2000, onQuery?: (q: QueryTiming) => void) {
  const dataDir = tempDir();
  const store = openStore({
    dataDir,
    clickhouse: null,
    queryPool: { size, queueMax, timeoutMs, maxMemoryBytes: 0, ...(onQuery ? { onQuery } : {}) },
  });
  return {
    store,
    done: async () => {
      await store.close();
      removeDir(dataDir);
    },
  };
}

/** Resolves with the order in which the two queries settled. */
async function settleOrder(client: ReturnType<typeof openStore>['query']): Promise<string[]> {
  const order: string[] = [];
  const heavy = client.query({ query: HEAVY, format: 'JSONEachRow' }).then(
    (r) => r.json(),
    () => undefined,
  );
  const light = client.query({ query: LIGHT, format: 'JSONEachRow' }).then((r) => r.json());
  await Promise.all([heavy.then(() => order.push('heavy')), light.then(() => order.push('light'))]);
  return order;
}

/** Notes `name` in `order` when `p` settles, answered or failed. */
const noteSettled = (order: string[], name: string, p: Promise<unknown>) =>
  p.then(
    () => order.push(name),
    () => order.push(name),
  );

describe('the query pool on the embedded store', () => {
  it('answers a light query while a heavy one holds another slot', async () => {
    const { store, done } = poolStore(2, 8);
    try {
      expect(await settleOrder(store.query)).toEqual(['light', 'heavy']);
    } finally {
      await done();
    }
  });

  it('answers a light query with parameters while a heavy one with parameters holds another slot', async () => {
    // chDB's binding runs queries with bound parameters one at a time in the whole process; the store writes
    // them into the SQL instead (inline-params.ts), so they run side by side like any other.
    const { store, done } = poolStore(2, 8);
    try {
      const order: string[] = [];
      const heavy = store.query
        .query({ query: HEAVY_BOUND, query_params: { rows: 100_000_000_000, zero: 0 }, format: 'JSONEachRow' })
        .then(
          (r) => r.json(),
          () => undefined,
        );
      const light = store.query
        .query({ query: LIGHT_BOUND, query_params: { one: 1 }, format: 'JSONEachRow' })
        .then((r) => r.json());
      await Promise.all([heavy.then(() => order.push('heavy')), light.then((r) => order.push(JSON.stringify(r)))]);
      expect(order).toEqual(['[{"one":1}]', 'heavy']);
    } finally {
      await done();
    }
  });

  it('writes any parameter value into the SQL as data: every string, array and number comes back as it was', async () => {
    const { store, done } = poolStore(2, 8);
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.string({ unit: 'binary' }),
          fc.array(fc.string({ unit: fc.constantFrom("'", '\\', '\0', '\n', '"', '}', '{', 'a', '`', ';', 'é') })),
          fc.integer({ min: -(2 ** 53) + 1, max: 2 ** 53 - 1 }),
          fc.double({ noNaN: true, noDefaultInfinity: true }),
          async (s, a, n, f) => {
            const rs = await store.query.query({
              query: 'SELECT {s:String} AS s, {a:Array(String)} AS a, {n:Int64} AS n, {f:Float64} AS f',
              query_params: { s, a, n, f },
              format: 'JSONEachRow',
            });
            const [row] = await rs.json<{ s: string; a: string[]; n: number; f: number }>();
            // A lone surrogate has no UTF-8 form: it reaches the store as U+FFFD, with bound parameters too.
            expect(row).toEqual({ s: Buffer.from(s).toString(), a, n, f: Object.is(f, -0) ? 0 : f });
          },
        ),
        { numRuns: 200 },
      );
    } finally {
      await done();
    }
  });

  it("takes a parameter longer than the engine's default limit on a query's text (its bytes, not its characters)", async () => {
    const { store, done } = poolStore(2, 8);
    try {
      // About 129 000 characters of SQL once written in, under half the default limit of 262 144, but about
      // 357 000 bytes (three per character): the limit counts bytes.
      const a = Array.from({ length: 1_900 }, (_, i) => `${'漢'.repeat(60)}${i}`);
      const rs = await store.query.query({
        query: 'SELECT length(x) AS n, x[1900] AS last FROM (SELECT {a:Array(String)} AS x)',
        query_params: { a },
        format: 'JSONEachRow',
      });
      expect(await rs.json()).toEqual([{ n: 1_900, last: a[1_899] }]);
    } finally {
      await done();
    }
  });

  it('with a single slot the light query waits behind the heavy one (what the pool prevents)', async () => {
    const { store, done } = poolStore(1, 8);
    try {
      expect(await settleOrder(store.query)).toEqual(['heavy', 'light']);
    } finally {
      await done();
    }
  });

  it('reports every read query once answered or failed: its wait for a slot, its time in the store, its SQL', async () => {
    const seen: QueryTiming[] = [];
    const { store, done } = poolStore(1, 8, 2000, (q) => seen.push(q));
    try {
      // One slot: the second query waits for the first to be answered.
      const [a, b] = await Promise.all([
        store.query.query({ query: 'SELECT sum(number) AS s FROM numbers(1000000)', format: 'JSONEachRow' }),
        store.query.query({ query: LIGHT, format: 'JSONEachRow' }),
      ]);
      expect(await b.json()).toEqual([{ one: 1 }]);
      await a.json();
      await expect(store.query.query({ query: 'SELECT no_such_column', format: 'JSONEachRow' })).rejects.toThrow();
      await heavyQuery.run(true, () => store.query.query({ query: LIGHT, format: 'JSONEachRow' }));
      expect(seen.map((q) => [q.sql, q.failed, q.kind])).toEqual([
        ['SELECT sum(number) AS s FROM numbers(1000000)', false, 'light'],
        [LIGHT, false, 'light'],
        ['SELECT no_such_column', true, 'light'],
        [LIGHT, false, 'heavy'],
      ]);
      for (const q of seen) expect(q.runMs).toBeGreaterThan(0);
      expect(seen[0]!.waitMs).toBeGreaterThanOrEqual(0);
      // It waited at least as long as the first query ran.
      expect(seen[1]!.waitMs).toBeGreaterThanOrEqual(seen[0]!.runMs);
    } finally {
      await done();
    }
  });

  it("stops a query at its time limit with the store's TIMEOUT_EXCEEDED, and frees its slot", async () => {
    const { store, done } = poolStore(1, 8, 1000);
    try {
      const err = await store.query.query({ query: HEAVY, format: 'JSONEachRow' }).then(
        () => null,
        (e: unknown) => e as { type?: string },
      );
      expect(err?.type).toBe('TIMEOUT_EXCEEDED');
      expect(await (await store.query.query({ query: LIGHT, format: 'JSONEachRow' })).json()).toEqual([{ one: 1 }]);
      expect(store.queryPool.active).toBe(0);
    } finally {
      await done();
    }
  });

  it('refuses at once with "busy" when the wait queue is full', async () => {
    const { store, done } = poolStore(1, 1);
    try {
      const running = store.query.query({ query: HEAVY, format: 'JSONEachRow' }).catch(() => undefined);
      const waiting = store.query.query({ query: LIGHT, format: 'JSONEachRow' });
      const refused = await store.query.query({ query: LIGHT, format: 'JSONEachRow' }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(refused).toBeInstanceOf(QueryBusyError);
      expect((refused as QueryBusyError).message).toMatch(/busy .*retry in \d+ s/);
      expect(store.queryPool.counts.busy).toBe(1);
      await Promise.all([running, waiting]);
    } finally {
      await done();
    }
  });

  it('refuses with "busy" a query that waited twice the time limit for a slot: no reader waits for ever', async () => {
    const { store, done } = poolStore(1, 8, 1000);
    try {
      // The only slot, held by something that does not end by itself (as a store call that never returns).
      let free = () => {};
      const held = store.queryPool.run(() => new Promise<void>((resolve) => (free = resolve)));
      const refused = await store.query.query({ query: LIGHT, format: 'JSONEachRow' }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(refused).toBeInstanceOf(QueryBusyError);
      expect((refused as QueryBusyError).message).toMatch(/busy .*retry in \d+ s/);
      expect(store.queryPool.queued).toBe(0);
      expect(store.queryPool.counts.busy).toBe(1);
      free();
      await held;
      expect(await (await store.query.query({ query: LIGHT, format: 'JSONEachRow' })).json()).toEqual([{ one: 1 }]);
    } finally {
      await done();
    }
  });

  it("work no reader waits for holds one slot, on one thread, and a reader's query goes before it", async () => {
    const { store, done } = poolStore(2, 8);
    try {
      const ask = (query: string) => store.query.query({ query, format: 'JSONEachRow' }).then((r) => r.json());
      const inBackground = <T>(fn: () => Promise<T>) => backgroundQuery.run(true, fn);
      // A query asking for four threads gets them, and gets one as background work.
      const threads = () =>
        store.query
          .query({
            query: "SELECT toUInt64(getSetting('max_threads')) AS n",
            format: 'JSONEachRow',
            clickhouse_settings: { max_threads: 4 },
          })
          .then(async (r) => Number((await r.json<{ n: number | string }>())[0]!.n));
      expect(await threads()).toBe(4);
      expect(await inBackground(threads)).toBe(1);

      const order: string[] = [];
      const settled = (name: string) => (p: Promise<unknown>) => noteSettled(order, name, p);
      // Two refreshes: the first holds one slot, the second waits although the other slot is free.
      const first = settled('background heavy')(inBackground(() => ask(HEAVY)));
      const second = settled('background light')(inBackground(() => ask(LIGHT)));
      expect(store.queryPool.active).toBe(1);
      expect(store.queryPool.queued).toBe(1);
      // A reader takes the free slot at once, and its next query waits before the waiting refresh.
      const reader = settled('reader light')(ask(LIGHT));
      expect(store.queryPool.active).toBe(2);
      await reader;
      await Promise.all([first, second]);
      expect(order).toEqual(['reader light', 'background heavy', 'background light']);
      // Counted apart: the thread check's background query and the two refreshes.
      expect(store.queryPool.counts).toMatchObject({ run: 5, background: 3 });
    } finally {
      await done();
    }
  });

  it('on a single slot, a reader waiting goes before background work that waited longer', async () => {
    const { store, done } = poolStore(1, 8);
    try {
      const order: string[] = [];
      const settled = (name: string) => (p: Promise<unknown>) => noteSettled(order, name, p);
      const ask = (query: string) => store.query.query({ query, format: 'JSONEachRow' }).then((r) => r.json());
      const held = settled('background heavy')(backgroundQuery.run(true, () => ask(HEAVY)));
      const later = settled('background light')(backgroundQuery.run(true, () => ask(LIGHT)));
      const reader = settled('reader light')(ask(LIGHT));
      expect(store.queryPool.queued).toBe(2);
      await Promise.all([held, later, reader]);
      expect(order).toEqual(['background heavy', 'reader light', 'background light']);
    } finally {
      await done();
    }
  });

  it("heavy readers' queries hold all slots but one: two at once take turns, and a light one runs beside them", async () => {
    const { store, done } = poolStore(2, 8, 1000);
    try {
      const order: string[] = [];
      const settled = (name: string) => (p: Promise<unknown>) => noteSettled(order, name, p);
      const ask = (query: string) => store.query.query({ query, format: 'JSONEachRow' }).then((r) => r.json());
      const heavy = (name: string) => settled(name)(heavyQuery.run(true, () => ask(HEAVY)));
      // Two heavy questions at once (say, two tokenless reads of the raw table): the second waits for the first.
      const first = heavy('first heavy');
      const second = heavy('second heavy');
      expect(store.queryPool.active).toBe(1);
      expect(store.queryPool.queued).toBe(1);
      // The dashboard's light question takes the slot they leave, at once.
      const light = settled('light')(ask(LIGHT));
      expect(store.queryPool.active).toBe(2);
      await Promise.all([first, second, light]);
      expect(order).toEqual(['light', 'first heavy', 'second heavy']);
      expect(store.queryPool.counts).toMatchObject({ run: 3, heavy: 2, background: 0 });
    } finally {
      await done();
    }
  });

  it('heavy questions wait in at most half the queue: a flood of them is refused as busy, light ones still wait', async () => {
    const { store, done } = poolStore(2, 4, 1000);
    try {
      const ask = (query: string) => store.query.query({ query, format: 'JSONEachRow' }).then((r) => r.json());
      const outcome = (p: Promise<unknown>) =>
        p.then(
          () => 'answered',
          (e: unknown) => (e instanceof QueryBusyError ? 'busy' : 'stopped at its limit'),
        );
      const heavy = () => outcome(heavyQuery.run(true, () => ask(HEAVY)));
      // One heavy question runs, two wait (half of a queue of 4), the fourth is refused at once.
      const heavies = [heavy(), heavy(), heavy(), heavy()];
      expect(await heavies[3]).toBe('busy');
      // A light question holds the other slot; two more light ones still find room to wait, a third does not.
      const lights = [outcome(ask(HEAVY)), outcome(ask(LIGHT)), outcome(ask(LIGHT)), outcome(ask(LIGHT))];
      expect(store.queryPool.queued).toBe(4);
      expect(await Promise.all(lights)).toEqual(['stopped at its limit', 'answered', 'answered', 'busy']);
      await Promise.all(heavies);
    } finally {
      await done();
    }
  });

  it('a light reader waiting goes before a heavy one that waited longer', async () => {
    // One slot: heavy queries may hold it (no slot is left to keep), but a light reader waiting goes first.
    const { store, done } = poolStore(1, 8, 1000);
    try {
      const order: string[] = [];
      const settled = (name: string) => (p: Promise<unknown>) => noteSettled(order, name, p);
      const ask = (query: string) => store.query.query({ query, format: 'JSONEachRow' }).then((r) => r.json());
      const held = settled('heavy')(heavyQuery.run(true, () => ask(HEAVY)));
      const later = settled('heavy, waited longer')(heavyQuery.run(true, () => ask(LIGHT)));
      const light = settled('light')(ask(LIGHT));
      expect(store.queryPool.queued).toBe(2);
      await Promise.all([held, later, light]);
      expect(order).toEqual(['heavy', 'light', 'heavy, waited longer']);
    } finally {
      await done();
    }
  });

  it('drops a waiting query whose reader went away, before it runs', async () => {
    const { store, done } = poolStore(1, 8);
    try {
      const running = store.query.query({ query: HEAVY, format: 'JSONEachRow' }).catch(() => undefined);
      const gone = new AbortController();
      const waiting = querySignal
        .run(gone.signal, () => store.query.query({ query: LIGHT, format: 'JSONEachRow' }))
        .then(
          () => 'ran',
          () => 'dropped',
        );
      expect(store.queryPool.queued).toBe(1);
      gone.abort(new Error('the client went away'));
      expect(await waiting).toBe('dropped');
      expect(store.queryPool.queued).toBe(0);
      expect(store.queryPool.counts).toMatchObject({ abandoned: 1 });
      await running;
      // Only the heavy query ran.
      expect(store.queryPool.counts.run).toBe(1);
    } finally {
      await done();
    }
  });
});

describe("one answer's queries", () => {
  it('a handshake answer from a rollup asks for its cells and its joint cells together, each in its own slot; from the raw table, in turn', async () => {
    await withApp({ QUERY_CONCURRENCY: '2' }, async ({ app }) => {
      await insertRecords(app, makeRecords(30));
      const pool = app.store.queryPool;
      const heavyBefore = pool.counts.heavy;
      const hour = 3_600_000;
      const to = Math.ceil((Date.now() + 1) / hour) * hour;
      const ask = (table: 'raw' | 'rollup') =>
        queryCells(
          app.store.query,
          {
            table,
            filters: { from: to - 2 * hour, to, site: null, clientCap: 5 },
            dimensions: ['stack'],
            metrics: 'handshake',
            limit: 10,
          },
          1,
        );
      for (const table of ['rollup', 'raw'] as const) {
        const answering = ask(table);
        // Both queries asked at once: light ones each take a slot; heavy ones (the raw table) take turns.
        expect({ table, active: pool.active, queued: pool.queued }).toEqual(
          table === 'rollup' ? { table, active: 2, queued: 0 } : { table, active: 1, queued: 1 },
        );
        const answer = await answering;
        expect(answer.table).toBe(table);
        expect(answer.cells.length).toBeGreaterThan(0);
        expect(Object.values(answer.cells[0]!.mix!).some((m) => Object.keys(m).length > 0)).toBe(true);
      }
      expect(pool.counts.heavy - heavyBefore).toBe(2);
    });
  });

  it("the what-if's connections are a heavy read, and so is any answer from the raw table; the rollup's answers are light", async () => {
    await withApp({ QUERY_CONCURRENCY: '2' }, async ({ app }) => {
      await insertRecords(app, makeRecords(30));
      const counts = app.store.queryPool.counts;
      const heavyAfter = async (url: string) => {
        const before = counts.heavy;
        const res = await app.inject({ url });
        expect(res.statusCode, res.body).toBe(200);
        return counts.heavy - before;
      };
      expect(await heavyAfter('/v1/compare?dimensions=stack')).toBe(0);
      expect(await heavyAfter('/v1/summary')).toBe(0);
      expect(await heavyAfter('/v1/compare?dimensions=stack&table=raw')).toBe(2);
      // Over whole hours its regions' counts come from the rollup: only the connections are read heavy.
      const hour = 3_600_000;
      const to = Math.ceil((Date.now() + 1) / hour) * hour;
      expect(await heavyAfter(`/v1/whatif?from=${to - 2 * hour}&to=${to}`)).toBe(1);
      // Operators see the same counts on /metrics.
      const metrics = (await app.inject({ url: '/metrics' })).body;
      expect(metricValue(metrics, 'tlsrum_read_queries_total{kind="heavy"}')).toBe(counts.heavy);
      expect(metricValue(metrics, 'tlsrum_read_slots_busy')).toBe(0);
    });
  });
});

describe('the read routes when the query path is saturated', () => {
  it('answer 503 + Retry-After saying "busy", while health and the dashboard files are served', async () => {
    const dashboardDir = tempDir('tlsrum-dash-');
    mkdirSync(join(dashboardDir, 'assets'));
    writeFileSync(join(dashboardDir, 'index.html'), '<!doctype html><title>tlsrum</title>');
    writeFileSync(join(dashboardDir, 'assets', 'world-abc123.js'), 'export const w = 1;');
    try {
      await withApp(
        { QUERY_CONCURRENCY: '1', QUERY_QUEUE_MAX: '0', QUERY_TIMEOUT_MS: '3000', DASHBOARD_DIR: dashboardDir },
        async ({ app }) => {
          const heavy = app.store.query.query({ query: HEAVY, format: 'JSONEachRow' }).catch(() => undefined);
          const res = await app.inject({ url: '/v1/summary' });
          expect(res.statusCode).toBe(503);
          expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
          expect(res.json().message).toMatch(/busy/);
          const metrics = (await app.inject({ url: '/metrics' })).body;
          expect(metricValue(metrics, 'tlsrum_read_queries_refused_total{reason="busy"}')).toBeGreaterThanOrEqual(1);
          expect(metricValue(metrics, 'tlsrum_read_slots_busy')).toBe(1);
          expect((await app.inject({ url: '/healthz' })).statusCode).toBe(200);
          expect((await app.inject({ url: '/' })).statusCode).toBe(200);
          expect((await app.inject({ url: '/assets/world-abc123.js' })).statusCode).toBe(200);
          await heavy;
          expect((await app.inject({ url: '/v1/summary' })).statusCode).toBe(200);
        },
      );
    } finally {
      removeDir(dashboardDir);
    }
  });
});

describe('what a failed read answers', () => {
  it('a read the store stopped at its time limit: 503 + Retry-After saying which limit and what to do, not "internal error"', async () => {
    const { store, done } = poolStore(1, 8, 1000);
    const app = Fastify({ logger: false });
    try {
      await app.register(errorHandler);
      app.get('/heavy', async () => (await store.query.query({ query: HEAVY, format: 'JSONEachRow' })).json());
      const res = await app.inject({ url: '/heavy' });
      expect(res.statusCode).toBe(503);
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(res.json().message).toMatch(/longer than the collector allows one query/);
    } finally {
      await app.close();
      await done();
    }
  });

  it("answers 500 for the collector's own SyntaxError: only a body that does not parse is the reader's fault", async () => {
    const app = Fastify({ logger: false });
    try {
      await app.register(errorHandler);
      app.get('/broken', async () => JSON.parse('{"cut": ') as unknown);
      const res = await app.inject({ url: '/broken' });
      expect(res.statusCode).toBe(500);
      expect(res.json().message).toBe('internal error');
    } finally {
      await app.close();
    }
  });
});

describe('load shedding under ingest pressure', () => {
  it('refuses writes only: the dashboard files, health and the read routes are still answered', async () => {
    const dashboardDir = tempDir('tlsrum-dash-');
    writeFileSync(join(dashboardDir, 'index.html'), '<!doctype html><title>tlsrum</title>');
    try {
      await withApp({ MAX_HEAP_USED_BYTES: '1', DASHBOARD_DIR: dashboardDir }, async ({ app }) => {
        let res = await postBatch(app, makeBatch());
        // The plugin samples memory once a second: wait for the first sample.
        for (let i = 0; i < 40 && res.statusCode !== 503; i++) {
          await new Promise((r) => setTimeout(r, 100));
          res = await postBatch(app, makeBatch());
        }
        expect(res.statusCode).toBe(503);
        expect((await app.inject({ url: '/' })).statusCode).toBe(200);
        expect((await app.inject({ url: '/healthz' })).statusCode).toBe(200);
        expect((await app.inject({ url: '/v1/summary' })).statusCode).toBe(200);
        expect((await app.inject({ url: '/v1/compare?dimensions=stack' })).statusCode).toBe(200);
      });
    } finally {
      removeDir(dashboardDir);
    }
  });
});
