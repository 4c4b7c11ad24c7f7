import { configDefaults, defineConfig } from 'vitest/config';
import { UNTIMED_FILES } from './vitest.files';

export default defineConfig({
  test: {
    name: 'e2e',
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    // Those that time nothing run beside the other projects' files (vitest.untimed.config.ts).
    exclude: [...configDefaults.exclude, ...UNTIMED_FILES],
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
