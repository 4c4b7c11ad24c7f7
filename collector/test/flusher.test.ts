/**
 * The flusher's retry loop on its own (real spool files, an insert that fails on demand, fake timers).
 */
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { Flusher } from '../src/ingest/flusher';
import { Spool } from '../src/ingest/spool';
import { removeDir, tempDir } from './helpers';

const dirs: string[] = [];
afterAll(() => dirs.forEach(removeDir));
afterEach(() => vi.useRealTimers());

// Real file I/O runs outside the fake clock: let it finish between steps.
async function settleIo(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
}
async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 1_000 && !cond(); i++) await new Promise((r) => setImmediate(r));
  expect(cond()).toBe(true);
}
const id = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;

describe('flusher', () => {
  it('retries after a failure even when its backoff timer fires before Date.now() reaches the retry time', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const dir = tempDir('tlsrum-flusher-');
    dirs.push(dir);
    const spool = new Spool({ dir, maxBytes: 1 << 20, maxRows: 10_000, segmentMaxRows: 1_000, segmentMaxAgeMs: 3_600_000 });
    spool.recover();
    let attempts = 0;
    const flusher = new Flusher(spool, {
      whenReady: Promise.resolve(),
      insert: async () => {
        attempts += 1;
        if (attempts === 1) throw new Error('store down');
      },
    });
    await spool.append(Spool.frame(id(1), '{"i":1}\n', 1, 'JSONEachRow'), 1);
    await spool.requestSeal();
    await until(() => attempts === 1 && flusher.consecutiveFailures === 1);
    // Node schedules timers on the event loop's cached clock, which lags Date.now() under load: the
    // retry timer can fire a few ms before the retry time it was set for.
    vi.setSystemTime(Date.now() - 5);
    // A full spool seals nothing new, so nothing else would wake the flusher: the timer must.
    for (let ms = 0; ms < 20_000 && spool.peek(); ms += 250) {
      await vi.advanceTimersByTimeAsync(250);
      await settleIo();
    }
    expect(attempts).toBe(2);
    expect(spool.peek()).toBeUndefined();
    expect(flusher.consecutiveFailures).toBe(0);
    flusher.stop();
    await spool.close();
  });
});
