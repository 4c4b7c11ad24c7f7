import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'extension',
    include: ['test/**/*.test.ts'],
    // Builds dist/chromium and dist/firefox once for the manifest and browser tests.
    globalSetup: ['test/support/global-setup.ts', '../collector/test/support/global-setup.ts'],
    // Browser tests start a collector on the embedded store (one data folder per process), lab servers and
    // browsers with the extension, and wait for its idle-time reports: one file at a time, after the other
    // projects' files (beside another file, a lab page once missed its 15 s to load).
    pool: 'forks',
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
