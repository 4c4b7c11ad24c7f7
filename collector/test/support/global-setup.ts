/**
 * Builds the store template (store-template.ts) once, before any test file runs, in a child process, and
 * hands its path to the test files (`inject('storeTemplate')`).
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { removeTemplate, templateDir } from './store-template';

const collectorDir = fileURLToPath(new URL('../..', import.meta.url));

export default function setup(project: TestProject): () => void {
  const dir = templateDir();
  execFileSync(process.execPath, ['--import', 'tsx', 'test/support/store-template.ts', dir], {
    cwd: collectorDir,
    stdio: 'inherit',
  });
  project.provide('storeTemplate', dir);
  return () => removeTemplate(dir);
}
