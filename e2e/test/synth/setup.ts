/**
 * What every runner test file sets up: fresh certificates and one test server (nginx or Caddy), started
 * before the file's tests and stopped and removed after them, and the runner options that point at it.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll } from 'vitest';
import type { SyntheticOptions } from '@tlsrum/synth';
import { makeTestCerts, type TestCerts } from './certs';

export function useTestServer<S extends { stop(): Promise<void> }>(
  start: (certs: TestCerts) => Promise<S>,
  makeCerts: () => TestCerts = makeTestCerts,
): { certs: TestCerts; server: S } {
  const lab = {} as { certs: TestCerts; server: S };
  beforeAll(async () => {
    lab.certs = makeCerts();
    lab.server = await start(lab.certs);
  });
  afterAll(async () => {
    await lab.server?.stop();
    if (lab.certs) rmSync(lab.certs.dir, { recursive: true, force: true });
  });
  return lab;
}

/** The test names on loopback, nothing else reachable, the test CA trusted. */
export const labOptions = (certs: TestCerts) =>
  ({
    hostResolver: { '*.synth.test': '127.0.0.1' },
    blockOtherHosts: true,
    caCertPath: certs.caPem,
  }) satisfies Partial<SyntheticOptions>;
