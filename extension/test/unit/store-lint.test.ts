/** Mozilla's add-on linter (what AMO runs on upload) on the Firefox build: no errors, no warnings. */
import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');

interface LintMessage {
  code: string;
  message: string;
  file?: string;
}

it('web-ext lint passes the Firefox build with 0 errors and 0 warnings', async () => {
  const { stdout } = await promisify(execFile)(
    join(root, 'node_modules/.bin/web-ext'),
    ['lint', '--source-dir', join(root, 'dist/firefox'), '--output', 'json', '--no-config-discovery'],
    {
      cwd: root,
      maxBuffer: 16 * 1024 * 1024,
    },
  ).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }));
  const report = JSON.parse(stdout) as {
    summary: { errors: number; warnings: number };
    errors: LintMessage[];
    warnings: LintMessage[];
  };
  const listed = [...report.errors, ...report.warnings].map((m) => `${m.code} ${m.file ?? ''}: ${m.message}`);
  expect(listed).toEqual([]);
  expect(report.summary).toMatchObject({ errors: 0, warnings: 0 });
}, 120_000);
