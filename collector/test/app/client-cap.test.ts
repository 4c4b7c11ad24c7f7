/**
 * The per-client cap's marks (ingest/client-cap.ts): of each client token, UTC day and site the records
 * after the first K are marked `capped` as they arrive — counted across requests and across all of the
 * site's cells, from zero at each UTC midnight, and across a restart of the collector (the counts of the
 * open days are read back from the store).
 */
import { describe, expect, it } from 'vitest';
import type { HandshakeRecord } from '@tlsrum/shared';
import { ClientCapCounter, type StoredCount } from '../../src/ingest/client-cap';
import { runBetweenRequests, runNow, SLICE } from '../../src/platform/work';
import { makeBatch, makeRecords, postBatch, removeDir, startApp, storedRows } from '../support/helpers';
import { countTurns } from '../support/turns';

const DAY = 86_400_000;
const K = 5;
// A UTC midnight; the counter itself never looks at the clock.
const D = Math.floor(Date.now() / DAY) * DAY - 10 * DAY;

const record = (token: string, ts: number, o: Partial<HandshakeRecord> = {}): HandshakeRecord => ({
  ...makeRecords(1)[0]!,
  clientToken: token,
  ts,
  ...o,
});

/** How many of `records` the counter lets count (in order), for one site. */
function counted(c: ClientCapCounter, records: HandshakeRecord[], site = 'shop.example'): number {
  const over = c.forBatch();
  return records.filter((r) => !over(r, site)).length;
}

describe('ClientCapCounter: K per token, UTC day and site', () => {
  it('starts a new count at UTC midnight', () => {
    const c = new ClientCapCounter({ perCell: K, maxEntries: 1000 });
    const night = [
      ...Array.from({ length: 4 }, () => record('night-owl', D - 60_000)),
      ...Array.from({ length: 4 }, () => record('night-owl', D + 60_000)),
    ];
    expect(counted(c, night)).toBe(8);
    expect(
      counted(
        c,
        Array.from({ length: 3 }, () => record('night-owl', D + DAY - 1)),
      ),
    ).toBe(1);
  });

  it('counts K per site whatever cells the records claim, across requests, and each token on its own', () => {
    const c = new ClientCapCounter({ perCell: K, maxEntries: 1000 });
    const three = (o: Partial<HandshakeRecord>) => Array.from({ length: 3 }, () => record('flooder', D + 1000, o));
    expect(counted(c, three({ protocol: 'h2' }))).toBe(3);
    expect(counted(c, three({ protocol: 'h2', resumed: true }))).toBe(2);
    expect(counted(c, three({ protocol: 'http/1.1', tlsVersion: '1.2', handshakeClass: 'unknown' }))).toBe(0);
    expect(counted(c, three({ protocol: 'h2' }), 'other.example')).toBe(3);
    expect(counted(c, three({ protocol: 'h2' }), '')).toBe(3);
    expect(
      counted(
        c,
        Array.from({ length: 9 }, () => record('honest', D + 1000)),
      ),
    ).toBe(K);
  });

  it('marks nothing at K = 0; forgets the least recently seen key under K first, never a key at K of an open day', () => {
    expect(
      counted(
        new ClientCapCounter({ perCell: 0, maxEntries: 10 }),
        Array.from({ length: 50 }, () => record('t', D)),
      ),
    ).toBe(50);
    const c = new ClientCapCounter({ perCell: 2, maxEntries: 2 });
    expect(counted(c, [record('a', D), record('b', D), record('c', D)])).toBe(3);
    expect(c.size).toBe(2);
    // `a` was forgotten under K: it starts over, reaches K, and is then kept whatever comes after.
    expect(counted(c, [record('a', D), record('a', D), record('a', D)])).toBe(2);
    expect(
      counted(
        c,
        ['d', 'e', 'f', 'g'].map((t) => record(t, D)),
      ),
    ).toBe(4);
    expect(counted(c, [record('a', D)])).toBe(0);
  });
});

describe('the counts stored before a start (seeding)', () => {
  // Tokens 0–2 are at K or over, 3–5 one under it, the rest have one record: smallest counts first, as the store gives them.
  const counts: StoredCount[] = Array.from({ length: 3 * SLICE + 17 }, (_, i): StoredCount => {
    const token = 3 * SLICE + 16 - i;
    return {
      clientToken: `seeded-${token}`,
      day: D / DAY,
      site: 'shop.example',
      n: token < 3 ? K + token : token < 6 ? K - 1 : 1,
    };
  });
  /** How many more records each of a few tokens may count after the seed (counting them). */
  const room = (c: ClientCapCounter) =>
    [0, 1, 2, 3, 4, 5, 6, 3 * SLICE + 16].map((t) =>
      counted(
        c,
        Array.from({ length: K + 1 }, () => record(`seeded-${t}`, D + 1000)),
      ),
    );

  it('hands the thread back between slices of the counts, and counts exactly what counting them at once does', async () => {
    const now = new ClientCapCounter({ perCell: K, maxEntries: 100_000 });
    runNow(now.seeding(counts));
    const paused = new ClientCapCounter({ perCell: K, maxEntries: 100_000 });
    const turns = countTurns();
    // A budget of 0 ms pauses at every point it may: one per slice of counts.
    await runBetweenRequests(paused.seeding(counts), 0);
    expect(turns.stop()).toBeGreaterThanOrEqual(Math.floor(counts.length / SLICE));
    expect(paused.size).toBe(now.size);
    // Counting more records changes the counter: each is asked once.
    const left = room(now);
    expect(room(paused)).toEqual(left);
    expect(left).toEqual([0, 0, 0, 1, 1, 1, K - 1, K - 1]);
  });

  it('seeds nothing at K = 0', () => {
    const c = new ClientCapCounter({ perCell: 0, maxEntries: 100 });
    runNow(c.seeding(counts));
    expect(c.size).toBe(0);
  });
});

describe('the marks across a restart (real embedded store)', () => {
  it('a restarted collector goes on counting from the records stored before it started', async () => {
    const env = { CLIENT_RECORDS_PER_CELL_DAY: String(K), TOKENS_PER_ADDRESS: '0' };
    const first = await startApp(env);
    const send = async (app: typeof first.app, n: number) => {
      const now = Date.now();
      const res = await postBatch(
        app,
        makeBatch(Array.from({ length: n }, (_, i) => record('restarting-flooder', now - 1000 - i))),
      );
      expect(res.statusCode, res.body).toBe(202);
      await app.ingest.flush();
    };
    try {
      await send(first.app, 4);
      await first.close();
      // Receipt times are whole seconds: the next process starts in a later one.
      await new Promise((r) => setTimeout(r, 1100));
      const second = await startApp(env, first.dataDir);
      try {
        await second.app.clientCapSeeded;
        expect(second.logs()).toContain('per-client cap: counts of the open days taken from the store');
        // Read as background work: no reader of the freshly started collector waits behind it.
        expect(second.app.store.queryPool.counts.background).toBeGreaterThanOrEqual(1);
        await send(second.app, 4);
        const stored = await storedRows(second.app);
        expect(stored).toHaveLength(8);
        expect(stored.filter((r) => Number(r.capped) === 1)).toHaveLength(8 - K);
        // What the marks are for: the rollup counts K of the token's records in that cell and day.
        const res = await second.app.inject({ method: 'GET', url: '/v1/compare?dimensions=protocol&table=rollup' });
        expect(res.json<{ cells: Array<{ records: number }> }>().cells.map((c) => c.records)).toEqual([K]);
      } finally {
        await second.close();
      }
    } finally {
      removeDir(first.dataDir);
    }
  });
});
