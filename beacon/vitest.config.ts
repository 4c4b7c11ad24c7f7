import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'beacon',
    include: ['test/**/*.test.ts'],
    // Fresh collector stores start as copies of one migrated once (collector/test/support/store-template.ts).
    globalSetup: ['../collector/test/support/global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
