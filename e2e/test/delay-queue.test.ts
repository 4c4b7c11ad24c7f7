/**
 * The delay queue on a faked clock: each chunk is released at its own arrival + delay (a burst is not
 * delayed once per chunk), never before, in order.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { at, DelayQueue } from '../lab/delay-queue';

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate', 'performance'] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('DelayQueue', () => {
  it('releases a burst at arrival + delay for every chunk, in order, not one delay after another', async () => {
    const out: string[] = [];
    const q = new DelayQueue<string>(40, (s) => out.push(s));
    for (const s of ['a', 'b', 'c', 'd']) q.push(s);
    await vi.advanceTimersByTimeAsync(39.5);
    expect(out).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(out).toEqual(['a', 'b', 'c', 'd']);
    expect(q.held.every((h) => h >= 40 && h < 41)).toBe(true);
  });

  it('releases chunks that arrive apart at their own due times', async () => {
    const out: string[] = [];
    const q = new DelayQueue<string>(10, (s) => out.push(s));
    q.push('a');
    await vi.advanceTimersByTimeAsync(5);
    q.push('b');
    await vi.advanceTimersByTimeAsync(5.5);
    expect(out).toEqual(['a']);
    await vi.advanceTimersByTimeAsync(5);
    expect(out).toEqual(['a', 'b']);
    expect(q.arrivedSince(0)).toEqual([0, 5]);
  });

  it('drops what is queued on clear', async () => {
    const out: string[] = [];
    const q = new DelayQueue<string>(10, (s) => out.push(s));
    q.push('a');
    q.clear();
    await vi.advanceTimersByTimeAsync(20);
    expect(out).toEqual([]);
  });
});

describe('DelayQueue on the real clock', () => {
  it('keeps releasing when a chunk falls due while the one before it is being released', async () => {
    vi.useRealTimers();
    const out: string[] = [];
    const q = new DelayQueue<string>(5, (s) => {
      out.push(s);
      // A slow release (socket write, a loaded machine): the next chunk is due before it returns.
      const until = performance.now() + 1;
      if (s === 'a') while (performance.now() < until);
    });
    q.push('a');
    const bDue = performance.now() + 0.2;
    while (performance.now() < bDue);
    q.push('b');
    const released = async (n: number) => {
      for (let i = 0; i < 200 && out.length < n; i++) await new Promise((r) => setTimeout(r, 10));
    };
    await released(2);
    expect(out).toEqual(['a', 'b']);
    // A chunk that arrives later is still released (the queue used to keep a spent wake-up and stall).
    q.push('c');
    await released(3);
    expect(out).toEqual(['a', 'b', 'c']);
  });
});

describe('at', () => {
  it('never calls back inside at(), even when the due time has passed', async () => {
    let fired = false;
    at(performance.now() - 5, () => (fired = true));
    expect(fired).toBe(false);
    await vi.advanceTimersByTimeAsync(0);
    expect(fired).toBe(true);
  });

  it('never fires before the due time, even for a fractional one, and can be cancelled', async () => {
    let fired: number | null = null;
    at(performance.now() + 7.3, () => (fired = performance.now()));
    const cancelled = at(performance.now() + 3, () => {
      throw new Error('cancelled wake-up fired');
    });
    cancelled.cancel();
    await vi.advanceTimersByTimeAsync(7);
    expect(fired).toBeNull();
    await vi.advanceTimersByTimeAsync(1);
    expect(fired).not.toBeNull();
    expect(fired!).toBeGreaterThanOrEqual(7.3);
  });
});

describe('DelayQueue with a burst window', () => {
  it('lets chunks that arrived within the window leave together, not before the last of them is due', async () => {
    const out: string[] = [];
    const q = new DelayQueue<string>(10, (s) => out.push(s), 1);
    q.push('a');
    await vi.advanceTimersByTimeAsync(0.5);
    q.push('b'); // due at 10.5: same burst as a
    await vi.advanceTimersByTimeAsync(3);
    q.push('c'); // due at 13.5: a burst of its own
    await vi.advanceTimersByTimeAsync(6.9);
    expect(out).toEqual([]);
    await vi.advanceTimersByTimeAsync(1.6);
    expect(out).toEqual(['a', 'b']);
    await vi.advanceTimersByTimeAsync(3);
    expect(out).toEqual(['a', 'b', 'c']);
    expect(q.held[0]).toBe(q.held[1]! + 0.5);
    expect(q.held.every((h) => h >= 10)).toBe(true);
  });
});
