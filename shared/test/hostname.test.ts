import { domainToASCII } from 'node:url';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { normalizeHostname } from '../src/hostname';
import { isValidALabel, punycodeDecode, punycodeEncode } from '../src/punycode';

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
    '',
    '.',
    'example.com/path',
    'example.com?q=1',
    'example.com#x',
    'example.com:443',
    'user@example.com',
    'exa mple.com',
    'a..b',
    '-a.com',
    'a_b.com',
    'exa%41mple.com',
    'ex\\ample.com',
    '192.0.2.1',
    '[::1]',
    'xn--zz.com',
    'example.com／a',
    `${'a'.repeat(64)}.com`,
    `${'a.'.repeat(127)}com`,
  ])('refuses %j', (raw) => {
    expect(normalizeHostname(raw, domainToASCII)).toBeNull();
  });

  it('without an IDNA converter: ASCII only', () => {
    expect(normalizeHostname('EXAMPLE.com')).toBe('example.com');
    expect(normalizeHostname('bücher.example')).toBeNull();
  });

  it('refuses a malformed A-label with or without a converter (whatever the platform accepts)', () => {
    for (const raw of ['xn--zz.com', 'xn--a.com', 'xn--abc.com', 'www.xn--9.example']) {
      expect(normalizeHostname(raw)).toBeNull();
      expect(normalizeHostname(raw, domainToASCII)).toBeNull();
    }
    expect(normalizeHostname('xn--bcher-kva.example')).toBe('xn--bcher-kva.example');
  });
});

describe('punycode', () => {
  // RFC 3492 section 7.1 samples, lower-cased, and common labels.
  it.each([
    ['bücher', 'bcher-kva'],
    ['mañana', 'maana-pta'],
    ['ü', 'tda'],
    [
      '\u0644\u064a\u0647\u0645\u0627\u0628\u062a\u0643\u0644\u0645\u0648\u0634\u0639\u0631\u0628\u064a\u061f',
      'egbpdaj6bu4bxfgehfvwxn',
    ],
    ['\u4ed6\u4eec\u4e3a\u4ec0\u4e48\u4e0d\u8bf4\u4e2d\u6587', 'ihqwcrb4cv8a8dqg056pqjye'],
    ['\u3072\u3068\u3064\u5c4b\u6839\u306e\u4e0b2', '2-u9tlzr9756bt3uc0v'],
  ])('%s ↔ %s', (unicode, encoded) => {
    const u = JSON.parse(`"${unicode}"`) as string;
    expect(punycodeEncode(u)).toBe(encoded);
    expect(punycodeDecode(encoded)).toBe(u);
    expect(isValidALabel(`xn--${encoded}`, domainToASCII)).toBe(true);
  });

  it.each(['zz', '9', '-', 'a', 'zzzzzzzzzzzzzzzzzzzzz', 'bcher-kv\u00e4'])('refuses %j', (encoded) => {
    expect(isValidALabel(`xn--${JSON.parse(`"${encoded}"`) as string}`)).toBe(false);
  });

  it('decodes what it encodes, for any label with a non-ASCII character', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }), (s) => {
        const label = s.toLowerCase();
        fc.pre(/[^\p{ASCII}]/u.test(label) && !/[\uD800-\uDFFF]/.test(label));
        expect(punycodeDecode(punycodeEncode(label))).toBe(label);
      }),
    );
  });

  it('agrees with the platform on every valid label it accepts', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }), (s) => {
        const ascii = domainToASCII(s);
        fc.pre(ascii.startsWith('xn--') && !ascii.includes('.'));
        expect(isValidALabel(ascii, domainToASCII)).toBe(true);
      }),
    );
  });
});
