import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'e2e',
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    // Real servers, browsers and delaying proxies whose timings the reports read: one file at a time, in a
    // fork of its own, after every other project's files (Vitest runs files without parallelism last).
    pool: 'forks',
    // Fresh collector stores start as copies of one migrated once (collector/test/support/store-template.ts).
    globalSetup: ['../collector/test/support/global-setup.ts'],
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
