import { domainToASCII } from 'node:url';
import { describe, expect, it } from 'vitest';
import { normalizeHostname } from '../src/hostname';

describe('normalizeHostname', () => {
  it.each([
    ['www.example.com', 'www.example.com'],
    ['WWW.Example.COM', 'www.example.com'],
    ['  example.com.  ', 'example.com'],
    ['Bücher.example', 'xn--bcher-kva.example'],
    ['xn--bcher-kva.example', 'xn--bcher-kva.example'],
    ['ｅｘａｍｐｌｅ.com', 'example.com'],
    ['example。com', 'example.com'],
    ['localhost', 'localhost'],
  ])('%j → %j', (raw, want) => {
    expect(normalizeHostname(raw, domainToASCII)).toBe(want);
  });

  it.each([
    '', '.', 'example.com/path', 'example.com?q=1', 'example.com#x', 'example.com:443', 'user@example.com',
    'exa mple.com', 'a..b', '-a.com', 'a_b.com', 'exa%41mple.com', 'ex\\ample.com', '192.0.2.1', '[::1]',
    'xn--zz.com', 'example.com／a', `${'a'.repeat(64)}.com`, `${'a.'.repeat(127)}com`,
  ])('refuses %j', (raw) => {
    expect(normalizeHostname(raw, domainToASCII)).toBeNull();
  });

  it('without an IDNA converter: ASCII only', () => {
    expect(normalizeHostname('EXAMPLE.com')).toBe('example.com');
    expect(normalizeHostname('bücher.example')).toBeNull();
  });
});
