/**
 * The lab's test files that read no timing (the probe against real servers, certificates, key exchanges; the
 * lab's and the synthetic runner's command lines; the reports' pure parts): run with the other projects' files
 * (vitest.untimed.config.ts).
 */
export const UNTIMED_FILES = [
  'test/probe-app.test.ts',
  'test/probe-lab.test.ts',
  'test/probe-checks-lab.test.ts',
  'test/probe-schedule.test.ts',
  'test/probe-main-lab.test.ts',
  'test/cert-key.test.ts',
  'test/crypto-lab.test.ts',
  'test/cli-args.test.ts',
  'test/lab-cli.test.ts',
  'test/server-timing.test.ts',
  'test/delay-queue.test.ts',
  'test/crypto-score.test.ts',
  'test/seeds.test.ts',
  'test/quic-stall.test.ts',
  'test/wire-span.test.ts',
  'test/extension-join.test.ts',
  'test/quic-packets.test.ts',
  // `pnpm synth` as a command: its output and the records a collector stores (what the browser observed, no timing).
  'test/synth/cli.test.ts',
] as const;
