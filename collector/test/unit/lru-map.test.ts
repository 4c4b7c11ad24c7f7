/** LruMap: bounded, least recently used forgotten first, and no slower once full (the reason it exists). */
import { describe, expect, it } from 'vitest';
import { LruMap } from '../../src/ingest/lru-map';

describe('LruMap', () => {
  it('forgets the least recently used entry beyond its capacity; get and set mark an entry used, has does not', () => {
    const m = new LruMap<string, number>(3);
    m.set('a', 1);
    m.set('b', 2);
    m.set('c', 3);
    expect(m.get('a')).toBe(1); // a is now the most recent: b is the oldest
    m.set('d', 4);
    expect([...m.keys()]).toEqual(['c', 'a', 'd']);
    m.set('c', 30); // update marks used
    expect(m.has('a')).toBe(true); // has does not
    m.set('e', 5);
    expect([...m]).toEqual([
      ['d', 4],
      ['c', 30],
      ['e', 5],
    ]);
    expect(m.size).toBe(3);
    expect(m.delete('c')).toBe(true);
    expect(m.delete('c')).toBe(false);
    expect([...m.keys()]).toEqual(['d', 'e']);
    m.clear();
    expect(m.size).toBe(0);
    expect([...m]).toEqual([]);
    m.set('x', 1);
    expect([...m.keys()]).toEqual(['x']);
  });

  it('agrees with a reference model over a random sequence of calls', () => {
    let seed = 7;
    const rand = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    const m = new LruMap<number, number>(50);
    const model: number[] = []; // keys, least recent first
    const values = new Map<number, number>();
    for (let i = 0; i < 20_000; i++) {
      const k = rand(120);
      const op = rand(4);
      if (op === 0) {
        expect(m.delete(k)).toBe(model.includes(k));
        if (model.includes(k)) model.splice(model.indexOf(k), 1);
      } else if (op === 1) {
        expect(m.get(k)).toBe(model.includes(k) ? values.get(k) : undefined);
        if (model.includes(k)) model.push(...model.splice(model.indexOf(k), 1));
      } else {
        m.set(k, i);
        values.set(k, i);
        if (model.includes(k)) model.splice(model.indexOf(k), 1);
        model.push(k);
        if (model.length > 50) model.shift();
      }
    }
    expect([...m.keys()]).toEqual(model);
  });
});
