/**
 * What the browser benches' local HTTPS pages share: a throw-away certificate for *.bench.test (trusted by
 * Chromium through its SPKI hash, `--ignore-certificate-errors-spki-list`) and a 1×1 PNG for the resources.
 */
import { createHash, createPublicKey } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export function benchCertificate(dir: string): { key: Buffer; cert: Buffer; spki: string } {
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=bench.test',
      '-addext',
      'subjectAltName=DNS:*.bench.test',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
    ],
    { stdio: 'ignore' },
  );
  const cert = readFileSync(join(dir, 'cert.pem'));
  const der = createPublicKey(cert).export({ type: 'spki', format: 'der' });
  return { key: readFileSync(join(dir, 'key.pem')), cert, spki: createHash('sha256').update(der).digest('base64') };
}

export const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
  'base64',
);

/** Chromium as every browser bench runs it: no sandbox or GPU, and nothing of its own on the network. */
export const CHROMIUM_ARGS: readonly string[] = [
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** For the benches' local HTTPS pages: every *.bench.test host is this machine, its certificate trusted by hash. */
export const benchHostArgs = (spki: string): string[] => [
  '--host-resolver-rules=MAP *.bench.test 127.0.0.1',
  `--ignore-certificate-errors-spki-list=${spki}`,
];
