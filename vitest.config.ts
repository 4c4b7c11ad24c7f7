import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: ['shared', 'collector', 'extension', 'e2e', 'dashboard', 'beacon'],
    reporters: ['default', './scripts/vitest-summary-reporter.ts'],
  },
});
