import { defineConfig } from 'vitest/config';
import { UNTIMED_FILES } from './vitest.files';

export default defineConfig({
  test: {
    name: 'e2e-untimed',
    // The lab's files that time nothing (vitest.files.ts). They run beside the other projects' files, two at a
    // time; the lab's files whose timings the reports read stay in the e2e project, one at a time (vitest.config.ts).
    include: [...UNTIMED_FILES],
    pool: 'forks',
    globalSetup: ['../collector/test/support/global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
