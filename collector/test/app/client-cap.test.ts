/**
 * The per-client cap's marks (ingest/client-cap.ts): of each client token, UTC day and site the records
 * after the first K are marked `capped` as they arrive — counted across requests and across all of the
 * site's cells, from zero at each UTC midnight, and across a restart of the collector (the counts of the
 * open days are read back from the store).
 */
import { describe, expect, it } from 'vitest';
import type { HandshakeRecord } from '@tlsrum/shared';
import { ClientCapCounter } from '../../src/ingest/client-cap';
import { makeBatch, makeRecords, postBatch, removeDir, startApp, storedRows } from '../support/helpers';

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
