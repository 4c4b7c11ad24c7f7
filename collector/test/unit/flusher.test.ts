/**
 * The flusher's retry loop on its own (real spool files, an insert that fails on demand, fake timers).
 */
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { Flusher } from '../../src/ingest/flusher';
import { Spool } from '../../src/ingest/spool/spool';
import { removeDir, tempDir } from '../support/helpers';

const dirs: string[] = [];
afterAll(() => dirs.forEach(removeDir));
afterEach(() => vi.useRealTimers());

// Real file I/O (append, seal, fsync, delete) runs outside the fake clock and, on a loaded machine,
// takes real milliseconds: wait for it on the real clock (performance.now and setImmediate are not faked).
async function waitReal(cond: () => boolean, ms: number): Promise<void> {
  const end = performance.now() + ms;
  while (!cond() && performance.now() < end) await new Promise((r) => setImmediate(r));
}
async function until(cond: () => boolean): Promise<void> {
  await waitReal(cond, 15_000);
  expect(cond()).toBe(true);
}
const id = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;

describe('flusher', () => {
  it(
    'retries after a failure even when its backoff timer fires before Date.now() reaches the retry time',
    { timeout: 60_000 },
    async () => {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
      const dir = tempDir('tlsrum-flusher-');
      dirs.push(dir);
      const spool = new Spool({
        dir,
        maxBytes: 1 << 20,
        maxRows: 10_000,
        segmentMaxRows: 1_000,
        segmentMaxAgeMs: 3_600_000,
        layout: { format: 'JSONEachRow', columns: null },
      });
      spool.recover();
      let attempts = 0;
      const flusher = new Flusher(spool, {
        whenReady: Promise.resolve(),
        insert: async () => {
          attempts += 1;
          if (attempts === 1) throw new Error('store down');
        },
      });
      await spool.append(Spool.frame(id(1), '{"i":1}\n', 1), 1);
      await spool.requestSeal();
      await until(() => attempts === 1 && flusher.consecutiveFailures === 1);
      // Node schedules timers on the event loop's cached clock, which lags Date.now() under load: the
      // retry timer can fire a few ms before the retry time it was set for.
      vi.setSystemTime(Date.now() - 5);
      // A full spool seals nothing new, so nothing else would wake the flusher: the timer must.
      for (let ms = 0; ms < 20_000 && spool.peek(); ms += 250) {
        await vi.advanceTimersByTimeAsync(250);
        // Let a retry that started finish its real I/O before the fake clock moves on.
        await waitReal(() => !spool.peek(), 100);
      }
      expect(attempts).toBe(2);
      expect(spool.peek()).toBeUndefined();
      expect(flusher.consecutiveFailures).toBe(0);
      flusher.stop();
      await spool.close();
    },
  );
});
