/**
 * The consent page's list of what is sent names every network hint the extension puts in a record (the
 * JSON view shows them): the connection type and the round-trip hint.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { HandshakeRecord } from '@tlsrum/shared';

const root = resolve(import.meta.dirname, '../..');
const messages = JSON.parse(readFileSync(join(root, '_locales/en/messages.json'), 'utf8')) as Record<
  string,
  { message: string }
>;
const page = readFileSync(join(root, 'src/onboarding/index.html'), 'utf8');
/** The items of the page's "What would be sent" list, as a person reads them. */
const listed = [...page.matchAll(/<li data-i18n="(obWhat\d+)">/g)].map((m) => messages[m[1]!]!.message).join(' ');

/** The network hints the extension reads from the browser, and the words the list uses for each. */
const HINTS: Record<keyof Pick<HandshakeRecord, 'effectiveType' | 'rttHint'>, RegExp> = {
  effectiveType: /connection type/,
  rttHint: /round-trip time/,
};

describe('consent page: what would be sent', () => {
  it('lists the connection type and the round-trip hint the extension sends', () => {
    const record = readFileSync(join(root, 'src/lib/record.ts'), 'utf8');
    for (const [field, words] of Object.entries(HINTS)) {
      expect(record, `the extension sends ${field}`).toContain(field);
      expect(listed, field).toMatch(words);
    }
  });
});
