import { gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Value } from 'typebox/value';
import { HandshakeBatch } from '@tlsrum/shared';
import { BACKOFF_BASE_MS, MAX_RECORD_AGE_MS } from '../../src/lib/constants';
import { Outbox, OUTBOX_KEY, type OutboxState } from '../../src/lib/outbox';
import { MemoryArea } from '../../src/lib/storage';
import { record } from '../support/records';

interface Call {
  url: string;
  headers: Record<string, string>;
  batch: HandshakeBatch;
}

/** A collector stand-in that answers from a script and records what it received. */
function scriptedFetch(answers: Array<number | [number, Record<string, string>] | 'network-error'>) {
  const calls: Call[] = [];
  const fetch: typeof globalThis.fetch = (async (url: string, init: RequestInit) => {
    const body = Buffer.from(init.body as Uint8Array);
    calls.push({
      url,
      headers: init.headers as Record<string, string>,
      batch: JSON.parse(gunzipSync(body).toString()) as HandshakeBatch,
    });
    const next = answers.shift() ?? 202;
    if (next === 'network-error') throw new TypeError('fetch failed');
    const [status, headers] = Array.isArray(next) ? next : [next, {}];
    return new Response(status === 202 ? '{"accepted":1}' : '{}', { status, headers });
  }) as unknown as typeof fetch;
  return { fetch, calls };
}

function makeOutbox(fetch: typeof globalThis.fetch, options: { maxQueued?: number; maxBatch?: number } = {}) {
  const area = new MemoryArea();
  let ids = 0;
  const scheduled: number[] = [];
  // The flush a retry timer started (gzip runs on Node's thread pool: await it, not just the timers).
  const retries: Promise<unknown>[] = [];
  const outbox = new Outbox({
    area,
    agent: { name: 'tlsrum-extension', version: '0.1.0' },
    collectorUrl: async () => 'http://collector.test:8787',
    fetch,
    random: () => 0.5,
    uuid: () => `00000000-0000-4000-8000-${String(++ids).padStart(12, '0')}`,
    onRetryScheduled: (at) => {
      scheduled.push(at);
      // What the background does with an alarm, here with a (fake) timer.
      setTimeout(() => retries.push(outbox.flush()), at - Date.now());
    },
    ...options,
  });
  const state = async () => (await area.get(OUTBOX_KEY))[OUTBOX_KEY] as OutboxState;
  /** Advances the fake clock and waits for any flush a retry timer started. */
  const advance = async (ms: number) => {
    await vi.advanceTimersByTimeAsync(ms);
    await Promise.all(retries.splice(0));
  };
  return { outbox, area, scheduled, state, advance };
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: Date.parse('2026-11-23T08:00:00Z') });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('Outbox queue', () => {
  it('keeps at most maxQueued records, dropping the oldest and counting them', async () => {
    const { outbox, state } = makeOutbox(scriptedFetch([]).fetch, { maxQueued: 5 });
    await outbox.enqueue([1, 2, 3].map((i) => record({ dns: i })));
    await outbox.enqueue([4, 5, 6, 7].map((i) => record({ dns: i })));
    const s = await state();
    expect(s.records.map((r) => r.dns)).toEqual([3, 4, 5, 6, 7]);
    expect(s.dropped).toBe(2);
  });
});

describe('Outbox delivery', () => {
  it('sends gzip batches that validate against the schema, then empties the queue', async () => {
    const { fetch, calls } = scriptedFetch([202, 202]);
    const { outbox, state } = makeOutbox(fetch, { maxBatch: 3 });
    await outbox.enqueue([1, 2, 3, 4, 5].map((i) => record({ dns: i })));
    const result = await outbox.flush();
    expect(result).toMatchObject({ sent: 5, ok: true });
    expect(calls).toHaveLength(2);
    expect(calls[0]!.url).toBe('http://collector.test:8787/v1/handshakes');
    expect(calls[0]!.headers).toMatchObject({ 'content-type': 'application/json', 'content-encoding': 'gzip' });
    for (const c of calls) expect(Value.Check(HandshakeBatch, c.batch)).toBe(true);
    expect(calls.map((c) => c.batch.records.length)).toEqual([3, 2]);
    expect(new Set(calls.map((c) => c.batch.batchId)).size).toBe(2);
    expect(await state()).toMatchObject({ records: [], pending: null, sent: 5, attempt: 0 });
  });

  it('a batch carries one client token: records queued across UTC midnight go in one batch per day', async () => {
    const { fetch, calls } = scriptedFetch([]);
    const { outbox, state } = makeOutbox(fetch, { maxBatch: 10 });
    // Queued overnight: yesterday's token before midnight, today's after, and yesterday's again (a
    // page measured before midnight whose records arrived late).
    await outbox.enqueue([1, 2, 3].map((i) => record({ dns: i, clientToken: 'token-of-yesterday' })));
    await outbox.enqueue([4, 5].map((i) => record({ dns: i, clientToken: 'token-of-today-000' })));
    await outbox.enqueue([record({ dns: 6, clientToken: 'token-of-yesterday' })]);
    const result = await outbox.flush();
    expect(result).toMatchObject({ ok: true, sent: 6 });
    expect(calls.map((c) => [...new Set(c.batch.records.map((r) => r.clientToken))])).toEqual([
      ['token-of-yesterday'],
      ['token-of-today-000'],
    ]);
    expect(calls.map((c) => c.batch.records.map((r) => r.dns))).toEqual([
      [1, 2, 3, 6],
      [4, 5],
    ]);
    expect(new Set(calls.map((c) => c.batch.batchId)).size).toBe(2);
    expect((await state()).records).toEqual([]);
  });

  it('backs off exponentially with jitter after failures and resends the same batchId', async () => {
    const { fetch, calls } = scriptedFetch(['network-error', 500, 202]);
    const { outbox, state, scheduled, advance } = makeOutbox(fetch);
    await outbox.enqueue([record(), record()]);
    const start = Date.now();

    expect(await outbox.flush()).toMatchObject({ sent: 0, ok: false, error: 'collector unreachable: fetch failed' });
    // random 0.5 → 3/4 of the ceiling: base for attempt 0, 2 × base for attempt 1.
    expect(scheduled[0]! - start).toBe(BACKOFF_BASE_MS * 0.75);
    // Before the retry time an automatic flush does nothing.
    expect(await outbox.flush()).toMatchObject({ deferred: true });
    expect(calls).toHaveLength(1);

    await advance(BACKOFF_BASE_MS * 0.75);
    expect(calls).toHaveLength(2);
    expect((await state()).lastError).toBe('collector answered 500');
    expect(scheduled[1]! - scheduled[0]!).toBe(BACKOFF_BASE_MS * 2 * 0.75);

    await advance(BACKOFF_BASE_MS * 2 * 0.75);
    expect(calls).toHaveLength(3);
    expect(new Set(calls.map((c) => c.batch.batchId)).size).toBe(1);
    expect(new Set(calls.map((c) => c.batch.sentAt)).size).toBe(1);
    expect(await state()).toMatchObject({
      records: [],
      pending: null,
      sent: 2,
      attempt: 0,
      nextAttemptAt: 0,
      lastError: null,
    });
  });

  it('honours Retry-After on 429 and 503 instead of its own backoff', async () => {
    const { fetch, calls } = scriptedFetch([
      [429, { 'retry-after': '120' }],
      [503, { 'retry-after': new Date(Date.now() + 200_000).toUTCString() }],
      202,
    ]);
    const { outbox, scheduled, advance } = makeOutbox(fetch);
    await outbox.enqueue([record()]);
    const start = Date.now();
    await outbox.flush();
    expect(scheduled[0]! - start).toBe(120_000);
    await advance(119_999);
    expect(calls).toHaveLength(1);
    await advance(1);
    expect(calls).toHaveLength(2);
    // The HTTP date is whole seconds: the retry lands within a second of it.
    expect(scheduled[1]! - start).toBeGreaterThan(199_000);
    expect(scheduled[1]! - start).toBeLessThanOrEqual(200_000);
    await advance(200_000);
    expect(calls).toHaveLength(3);
    expect(new Set(calls.map((c) => c.batch.batchId)).size).toBe(1);
  });

  it('"send now" ignores the backoff time but keeps the batch id', async () => {
    const { fetch, calls } = scriptedFetch([503, 202]);
    const { outbox } = makeOutbox(fetch);
    await outbox.enqueue([record()]);
    await outbox.flush();
    expect(await outbox.flush({ force: true })).toMatchObject({ sent: 1, ok: true });
    expect(calls[0]!.batch.batchId).toBe(calls[1]!.batch.batchId);
  });

  it('drops a batch the collector refuses as invalid (resending cannot help) and goes on', async () => {
    const { fetch, calls } = scriptedFetch([400, 202]);
    const { outbox, state } = makeOutbox(fetch, { maxBatch: 1 });
    await outbox.enqueue([record({ dns: 1 }), record({ dns: 2 })]);
    expect(await outbox.flush()).toMatchObject({ sent: 1, ok: true });
    expect(calls.map((c) => c.batch.records[0]!.dns)).toEqual([1, 2]);
    // A later success clears lastError; the refusal stays counted.
    expect(await state()).toMatchObject({ rejected: 1, sent: 1, lastError: null });
  });

  it('splits a batch the collector finds too large (413)', async () => {
    const { fetch, calls } = scriptedFetch([413, 202, 202]);
    const { outbox, state } = makeOutbox(fetch);
    await outbox.enqueue([1, 2, 3, 4].map((i) => record({ dns: i })));
    await outbox.flush();
    expect(calls.map((c) => c.batch.records.map((r) => r.dns))).toEqual([
      [1, 2, 3, 4],
      [1, 2],
      [3, 4],
    ]);
    expect(await state()).toMatchObject({ sent: 4, rejected: 0 });
  });

  it('drops records older than the collector accepts before sending', async () => {
    const { fetch, calls } = scriptedFetch([202]);
    const { outbox, state } = makeOutbox(fetch);
    await outbox.enqueue([record({ ts: Date.now() - MAX_RECORD_AGE_MS - 1 }), record()]);
    await outbox.flush();
    expect(calls[0]!.batch.records).toHaveLength(1);
    expect(await state()).toMatchObject({ expired: 1, sent: 1 });
  });

  it('survives a restart between persisting a batch and its answer: the new instance resends it', async () => {
    let release!: () => void;
    const hang = new Promise<void>((r) => (release = r));
    let sending!: () => void;
    const sent = new Promise<void>((r) => (sending = r));
    const first = scriptedFetch([]);
    const hangingFetch = (async (url: string, init: RequestInit) => {
      await first.fetch(url, init);
      sending();
      await hang;
      throw new TypeError('worker stopped');
    }) as unknown as typeof fetch;
    const { outbox, area } = makeOutbox(hangingFetch);
    await outbox.enqueue([record(), record()]);
    const inflight = outbox.flush();
    // The batch is persisted and on its way (its gzip runs on Node's thread pool: wait for the send itself,
    // not only for the timers).
    await sent;
    // A second background instance over the same storage (the worker was restarted).
    const again = scriptedFetch([202]);
    const revived = new Outbox({
      area,
      agent: { name: 'tlsrum-extension', version: '0.1.0' },
      collectorUrl: async () => 'http://c',
      fetch: again.fetch,
    });
    expect(await revived.flush({ force: true })).toMatchObject({ sent: 2, ok: true });
    expect(again.calls[0]!.batch.batchId).toBe(first.calls[0]!.batch.batchId);
    release();
    await inflight;
  });
});
