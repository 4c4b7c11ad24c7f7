/** Copies `_locales/<lang>/messages.json` into a build, checking each file parses and every message has a text. */
import { cpSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export function copyLocales(root: string, outDir: string): void {
  const dir = join(root, '_locales');
  for (const lang of readdirSync(dir)) {
    const file = join(dir, lang, 'messages.json');
    const messages = JSON.parse(readFileSync(file, 'utf8')) as Record<string, { message?: unknown }>;
    for (const [key, m] of Object.entries(messages)) {
      if (typeof m.message !== 'string' || !m.message) throw new Error(`${file}: "${key}" has no message`);
    }
  }
  cpSync(dir, join(outDir, '_locales'), { recursive: true });
}
