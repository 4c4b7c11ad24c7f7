/** The one-at-a-time lock the extension's storage and the collector's site registry share. */
import { describe, expect, it } from 'vitest';
import { Mutex } from '../src/mutex';

const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

describe('Mutex', () => {
  it('runs each call after the one before it has settled, in call order, never two at once', async () => {
    const m = new Mutex();
    const log: string[] = [];
    let running = 0;
    const job = (name: string, ticks: number) =>
      m.run(async () => {
        running++;
        expect(running).toBe(1);
        log.push(`${name} start`);
        for (let i = 0; i < ticks; i++) await tick();
        log.push(`${name} end`);
        running--;
        return name;
      });
    const results = await Promise.all([job('a', 3), job('b', 0), job('c', 1)]);
    expect(results).toEqual(['a', 'b', 'c']);
    expect(log).toEqual(['a start', 'a end', 'b start', 'b end', 'c start', 'c end']);
  });

  it('a failed call rejects its own caller only; the next still runs', async () => {
    const m = new Mutex();
    const failed = m.run(async () => {
      throw new Error('store unreachable');
    });
    const next = m.run(async () => 'ran');
    await expect(failed).rejects.toThrow('store unreachable');
    await expect(next).resolves.toBe('ran');
  });
});
