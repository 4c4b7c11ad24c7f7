import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      'shared',
      'probe',
      'synth',
      'beacon',
      'collector',
      'extension',
      'e2e',
      'e2e/vitest.untimed.config.ts',
      'dashboard',
      'bench',
    ],
    // Two test files at a time, whatever the machine: on two cores that cuts about a third of the suite's time
    // (most files wait on a store, a browser or a timer), and each file's own store, browser and servers
    // are sized for one neighbour. The lab's files whose timings count (e2e) and the extension's run one at a
    // time after every other file; the lab's files that time nothing (e2e-untimed) run with the others.
    maxWorkers: 2,
    reporters: ['default', './scripts/vitest-summary-reporter.ts'],
  },
});
