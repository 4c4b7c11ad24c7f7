/** Tokens per address: a budget per address, site and UTC day, bounded memory, the address kept as a keyed hash. */
import { describe, expect, it } from 'vitest';
import { prefixOf, TokenBudget } from '../../src/ingest/token-budget';

const DAY = 86_400_000;

describe('TokenBudget', () => {
  it('admits up to perAddress new tokens per address and site, and the admitted ones again', () => {
    const b = new TokenBudget({ perAddress: 3, maxEntries: 100 });
    for (const t of ['tok-aaaa', 'tok-bbbb', 'tok-cccc']) expect(b.admits('198.51.100.7', 'a.example', t)).toBe(true);
    expect(b.admits('198.51.100.7', 'a.example', 'tok-dddd')).toBe(false);
    expect(b.admits('198.51.100.7', 'a.example', 'tok-bbbb')).toBe(true);
    // Another site, another address: budgets of their own.
    expect(b.admits('198.51.100.7', 'b.example', 'tok-dddd')).toBe(true);
    expect(b.admits('198.51.100.7', null, 'tok-dddd')).toBe(true);
    expect(b.admits('198.51.100.8', 'a.example', 'tok-dddd')).toBe(true);
  });

  it('starts over each UTC day with a new secret', () => {
    let now = Date.UTC(2026, 10, 24, 23, 59);
    let secrets = 0;
    const b = new TokenBudget({
      perAddress: 1,
      maxEntries: 100,
      now: () => now,
      secret: () => Buffer.from(`secret-${++secrets}`),
    });
    expect(b.admits('198.51.100.7', 'a.example', 'tok-aaaa')).toBe(true);
    expect(b.admits('198.51.100.7', 'a.example', 'tok-bbbb')).toBe(false);
    now += 2 * 60_000;
    expect(b.admits('198.51.100.7', 'a.example', 'tok-bbbb')).toBe(true);
    expect(secrets).toBe(2);
    now += DAY;
    expect(b.size).toBe(1);
    b.admits('198.51.100.9', 'a.example', 'tok-cccc');
    expect(b.size).toBe(1);
  });

  it('remembers at most maxEntries pairs, forgetting the least recently seen', () => {
    const b = new TokenBudget({ perAddress: 1, maxEntries: 3 });
    for (let i = 0; i < 10; i++) b.admits(`198.51.100.${i}`, 'a.example', `tok-${i}xxxx`);
    expect(b.size).toBe(3);
    // 198.51.100.9 is remembered: its budget is spent; 198.51.100.0 was forgotten: it may start over.
    expect(b.admits('198.51.100.9', 'a.example', 'tok-other')).toBe(false);
    expect(b.admits('198.51.100.0', 'a.example', 'tok-other')).toBe(true);
  });

  it('holds no address or token in the clear', () => {
    const b = new TokenBudget({ perAddress: 5, maxEntries: 10 });
    b.admits('203.0.113.77', 'a.example', 'secret-token-xyz');
    const dump = JSON.stringify(
      [...(b as unknown as { entries: Map<string, Set<string>> }).entries].map(([k, v]) => [k, [...v]]),
    );
    expect(dump).not.toContain('203.0.113.77');
    expect(dump).not.toContain('secret-token-xyz');
  });

  it('counts an IPv6 subscriber per /64', () => {
    expect(prefixOf('2001:db8:1:2:aaaa:bbbb:cccc:dddd')).toBe('2001:db8:1:2::');
    expect(prefixOf('2001:DB8:0001:0002::1')).toBe('2001:db8:1:2::');
    expect(prefixOf('::ffff:198.51.100.7')).toBe('198.51.100.7');
    expect(prefixOf('198.51.100.7')).toBe('198.51.100.7');
    const b = new TokenBudget({ perAddress: 1, maxEntries: 10 });
    expect(b.admits('2001:db8:1:2::a', null, 'tok-aaaa')).toBe(true);
    expect(b.admits('2001:db8:1:2::b', null, 'tok-bbbb')).toBe(false);
    expect(b.admits('2001:db8:1:3::b', null, 'tok-bbbb')).toBe(true);
  });
});
