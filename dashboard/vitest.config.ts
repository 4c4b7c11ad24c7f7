import { defineConfig } from 'vitest/config';
import { countryNamesModule } from './scripts/country-names.ts';

export default defineConfig({
  // The page's modules as the build resolves them (the country names are made at build time).
  plugins: [countryNamesModule()],
  test: {
    name: 'dashboard',
    include: ['test/**/*.test.ts'],
    // Builds the dashboard once for every browser test file.
    globalSetup: ['test/support/global-setup.ts', '../collector/test/support/global-setup.ts'],
    // The browser test runs a collector on an embedded store: one store per process.
    pool: 'forks',
    testTimeout: 120_000,
    hookTimeout: 240_000,
  },
});
