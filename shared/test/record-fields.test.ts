import { spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { HandshakeRecord } from '../src/schema';
import { RECORD_FIELDS_FILE, renderRecordFields, typeOf } from '../scripts/record-fields';

describe('docs/record-fields.md', () => {
  it('is exactly what `pnpm docs:fields` generates from the schema (the field docs cannot drift from it)', () => {
    expect(readFileSync(RECORD_FIELDS_FILE, 'utf8')).toBe(renderRecordFields());
  });

  it('documents every record field with a meaning of its own', () => {
    const text = renderRecordFields();
    for (const [field, schema] of Object.entries(HandshakeRecord.properties)) {
      expect((schema as { description?: string }).description ?? '', field).not.toBe('');
      expect(text, field).toContain(`| \`${field}\` |`);
    }
  });

  it('spells types from the schema keywords: values, bounds, null, optional', () => {
    expect(typeOf({ anyOf: [{ enum: ['1.2', '1.3'] }, { type: 'null' }] })).toBe('`1.2` \\| `1.3` \\| `null`');
    expect(typeOf({ type: 'number', minimum: 0, maximum: 60000 })).toBe('number 0–60 000');
    expect(renderRecordFields()).toContain('| `cipher` | optional string of 1–96 characters');
  });

  it('`pnpm docs:fields --help` says what it writes and writes nothing; an argument it does not take is refused', () => {
    const script = fileURLToPath(new URL('../scripts/record-fields.ts', import.meta.url));
    const run = (arg: string) =>
      spawnSync(process.execPath, ['--import', 'tsx', script, arg], { encoding: 'utf8', timeout: 60_000 });
    const before = statSync(RECORD_FIELDS_FILE).mtimeMs;
    const help = run('--help');
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^usage: pnpm docs:fields\n\nWrites docs\/record-fields\.md/);
    const refused = run('--out');
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain('pnpm docs:fields takes no arguments (got --out)');
    expect(statSync(RECORD_FIELDS_FILE).mtimeMs).toBe(before);
  });
});
