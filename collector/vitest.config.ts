import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'collector',
    include: ['test/**/*.test.ts'],
    // chDB allows one open data folder per process: each file runs in its own fork, tests in a file run
    // one after the other, each closing its store before the next opens another.
    pool: 'forks',
    // Every fresh store starts as a copy of one whose migrations are applied (test/support/store-template.ts).
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
