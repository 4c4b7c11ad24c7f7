/**
 * Builds the store template (store-template.ts) before any test file runs, in a child process, and hands
 * its path to the test files (`inject('storeTemplate')`). Every project that starts collectors lists this
 * setup; the first to run builds the template, the others are given the same one.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { removeTemplate, templateDir } from './store-template';

const collectorDir = fileURLToPath(new URL('../..', import.meta.url));
/** Shared by the projects' setups, which run in the one runner process (each loads this module on its own). */
const BUILT = Symbol.for('tlsrum.test.storeTemplate');

function build(): string {
  const dir = templateDir();
  execFileSync(process.execPath, ['--import', 'tsx', 'test/support/store-template.ts', dir], {
    cwd: collectorDir,
    stdio: 'inherit',
  });
  return dir;
}

export default function setup(project: TestProject): () => void {
  const shared = globalThis as { [BUILT]?: string };
  const dir = (shared[BUILT] ??= build());
  project.provide('storeTemplate', dir);
  // Teardown runs once every test file of every project has finished: the first one removes it.
  return () => removeTemplate(dir);
}
