/**
 * A store whose migrations are applied, made once per test run and copied into every test's fresh data
 * folder. Applying the migrations to an empty embedded store takes about 4 s on a 2-core machine (every
 * table and view its history ever created, most of them replaced later); a copy of the result takes well
 * under one. A copy is what a restart finds: the collector applies what is pending (nothing) and goes on.
 * The migrations themselves, from an empty folder and from every older one, are tested where that is the
 * point (store.test.ts, upgrade.test.ts), on folders of their own.
 *
 * `global-setup.ts` builds the template in a child process (the test runner's own process never loads the
 * store) and provides its path; where a project provides none, or outside a test run (`pnpm lab:accuracy` starts
 * the extension's test collector for its extension arm), a fresh folder stays empty and the collector applies
 * the migrations itself, as in production.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A data folder holding an embedded store with every migration applied and no rows. */
    storeTemplate: string;
  }
}

/** Makes `dir` (created when absent, else empty) a store with the migrations applied, when the run has a template. */
export function seedStore(dir: string): string {
  // Outside a test run `inject` throws: Vitest sets VITEST in its workers' environment.
  const template = process.env.VITEST ? inject('storeTemplate') : undefined;
  mkdirSync(dir, { recursive: true });
  if (template) cpSync(template, dir, { recursive: true, verbatimSymlinks: true });
  return dir;
}

/** A new temporary data folder holding a store with the migrations applied and no rows (see seedStore). */
export function freshStoreDir(prefix = 'tlsrum-test-'): string {
  return seedStore(mkdtempSync(join(tmpdir(), prefix)));
}

/** Builds the template in `dir`: opens an embedded store there, applies the migrations, closes it. */
async function buildStoreTemplate(dir: string): Promise<void> {
  const { openStore } = await import('../../src/platform/store/clients');
  const { migrate } = await import('../../src/platform/store/migrate');
  const store = openStore({ dataDir: dir, clickhouse: null });
  try {
    await migrate(store.ingest);
  } finally {
    await store.close();
  }
}

/** A new folder for the template, beside the test run's other temporary folders. */
export function templateDir(): string {
  return join(mkdtempSync(join(tmpdir(), 'tlsrum-store-template-')), 'data');
}

export function removeTemplate(dir: string): void {
  if (existsSync(dir)) rmSync(join(dir, '..'), { recursive: true, force: true });
}

// As a script (global-setup.ts runs it): build the template into argv[2].
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await buildStoreTemplate(process.argv[2]!);
