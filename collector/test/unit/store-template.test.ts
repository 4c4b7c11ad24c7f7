/**
 * The test collectors' fresh stores (store-template.ts) are made outside a test run too: `pnpm lab:accuracy`
 * starts the extension's test collector for its extension arm, which seeds its folder from the run's template.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const work = mkdtempSync(join(tmpdir(), 'tlsrum-store-template-cli-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('a fresh store folder', () => {
  it('is made outside a test run, empty (the collector applies the migrations itself), as the accuracy command needs', () => {
    const script = join(work, 'seed.mts');
    const dir = join(work, 'data');
    const template = fileURLToPath(new URL('../support/store-template.ts', import.meta.url));
    writeFileSync(
      script,
      `import { seedStore } from ${JSON.stringify(template)};\nseedStore(${JSON.stringify(dir)});\n`,
    );
    // The environment of a command, not of a Vitest worker.
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('VITEST')));
    const run = spawnSync(process.execPath, ['--import', 'tsx', script], { env, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(existsSync(dir)).toBe(true);
    expect(readdirSync(dir)).toEqual([]);
  });
});
