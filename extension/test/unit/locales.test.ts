/** Every user-facing string comes from _locales/en: each key used exists, each message is used. */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { manifestFor, TARGETS } from '../../src/manifest';

const root = resolve(import.meta.dirname, '../..');
const messages = JSON.parse(readFileSync(join(root, '_locales/en/messages.json'), 'utf8')) as Record<
  string,
  { message: string }
>;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? files(join(dir, n)) : [join(dir, n)]));
}

const sources = files(join(root, 'src')).filter((f) => /\.(ts|html)$/.test(f));
const used = new Set<string>();
for (const f of sources) {
  const text = readFileSync(f, 'utf8');
  for (const m of text.matchAll(/data-i18n(?:-placeholder|-title)?="([A-Za-z0-9_]+)"/g)) used.add(m[1]!);
  for (const m of text.matchAll(/\bt\('([A-Za-z0-9_]+)'/g)) used.add(m[1]!);
  // Keys chosen by a condition: t(cond ? 'a' : 'b').
  for (const m of text.matchAll(/'([a-z][A-Za-z0-9]+)'/g)) if (m[1]! in messages && /\bt\(/.test(text)) used.add(m[1]!);
}
for (const target of TARGETS)
  for (const m of JSON.stringify(manifestFor(target, '0')).matchAll(/__MSG_([A-Za-z0-9_]+)__/g)) used.add(m[1]!);

describe('_locales/en/messages.json', () => {
  it('has every key the pages, the background and the manifest use', () => {
    expect([...used].filter((k) => !(k in messages))).toEqual([]);
  });
  it('has no message nobody uses', () => {
    expect(Object.keys(messages).filter((k) => !used.has(k))).toEqual([]);
  });
  it('leaves no visible text in the HTML pages outside data-i18n', () => {
    for (const f of sources.filter((s) => s.endsWith('.html'))) {
      const afterBody = readFileSync(f, 'utf8').split('<body')[1]!;
      const body = afterBody.slice(afterBody.indexOf('>') + 1).replace(/<script[\s\S]*?<\/script>/g, '');
      const texts = body
        .replace(/<[^>]+>/g, '\n')
        .split('\n')
        .map((s) => s.trim())
        .filter(Boolean);
      // The product name is not translated.
      expect(
        texts.filter((s) => s !== 'tlsrum' && s !== '0'),
        f,
      ).toEqual([]);
    }
  });
});
