import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: ['shared', 'probe', 'synth', 'beacon', 'collector', 'extension', 'e2e', 'dashboard', 'bench'],
    reporters: ['default', './scripts/vitest-summary-reporter.ts'],
  },
});
