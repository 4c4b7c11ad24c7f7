import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'probe',
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
  },
});
