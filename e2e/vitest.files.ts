/** The lab's test files that read no timing: run with the other projects' files (vitest.probe.config.ts). */
export const PROBE_LAB_FILES = [
  'test/probe-app.test.ts',
  'test/probe-lab.test.ts',
  'test/probe-checks-lab.test.ts',
  'test/probe-schedule.test.ts',
  'test/probe-main-lab.test.ts',
  'test/cert-key.test.ts',
  'test/crypto-lab.test.ts',
  'test/cli-args.test.ts',
] as const;
