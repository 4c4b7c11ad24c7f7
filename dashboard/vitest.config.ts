import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'dashboard',
    include: ['test/**/*.test.ts'],
    // The browser test runs a collector on an embedded store: one store per process.
    pool: 'forks',
    testTimeout: 120_000,
    hookTimeout: 240_000,
  },
});
