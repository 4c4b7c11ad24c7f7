/**
 * Builds the dashboard once, before any test file runs, into a folder of its own: every browser test serves
 * that build (browser/support/collector.ts finds it with `inject('dashboardDist')`) instead of building its
 * own, about 8 s each on a 2-core machine, most of it the build's highest-level brotli copies.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The dashboard as `vite build` writes it (index.html, assets/), for the collector to serve. */
    dashboardDist: string;
  }
}

const dashboardDir = fileURLToPath(new URL('../..', import.meta.url));

export default async function setup(project: TestProject): Promise<() => void> {
  const work = mkdtempSync(join(tmpdir(), 'tlsrum-dashboard-build-'));
  const outDir = join(work, 'dist');
  await build({
    root: dashboardDir,
    configFile: join(dashboardDir, 'vite.config.ts'),
    logLevel: 'warn',
    build: { outDir, emptyOutDir: true },
  });
  project.provide('dashboardDist', outDir);
  return () => rmSync(work, { recursive: true, force: true });
}
