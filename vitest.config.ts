import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: ['shared', 'collector', 'extension', 'e2e'],
    reporters: ['default', './scripts/vitest-summary-reporter.ts'],
  },
});
