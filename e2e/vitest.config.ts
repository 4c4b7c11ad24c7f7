import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'e2e',
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    // Real servers and browsers: files run in separate forks, one at a time per file.
    pool: 'forks',
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
