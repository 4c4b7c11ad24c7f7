import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'extension',
    include: ['test/**/*.test.ts'],
    // Builds dist/chromium and dist/firefox once for the manifest and browser tests.
    globalSetup: ['test/support/global-setup.ts'],
    // Browser tests start a collector on the embedded store (one data folder per process) and browsers.
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
