/**
 * Firefox's certificate exception for a self-signed certificate that is marked as a CA (openssl req -x509's
 * default): written for the run's URLs and that exact certificate only, never for a real CA.
 */
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { firefoxExceptionsFor } from '../src/nss';

const dir = mkdtempSync(join(tmpdir(), 'tlsrum-synth-nss-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function selfSigned(name: string, ext: string[]): string {
  const file = join(dir, `${name}.pem`);
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      join(dir, `${name}.key`),
      '-out',
      file,
      '-days',
      '2',
      '-subj',
      `/CN=${name}`,
      ...ext.flatMap((e) => ['-addext', e]),
    ],
    { stdio: 'pipe' },
  );
  return file;
}

describe('Firefox certificate exceptions', () => {
  it('a self-signed CA-marked server certificate gets one exception per host:port, for its own fingerprint', () => {
    const cert = selfSigned('self.example.test', ['subjectAltName=DNS:self.example.test']);
    const profile = mkdtempSync(join(dir, 'profile-'));
    const lines = firefoxExceptionsFor(profile, cert, [
      'https://self.example.test:8443/a',
      'https://self.example.test:8443/b?x=1',
      'https://self.example.test/',
    ]);
    const fp = new X509Certificate(readFileSync(cert)).fingerprint256;
    expect(lines).toEqual([
      `self.example.test:8443:\tOID.2.16.840.1.101.3.4.2.1\t${fp}\t`,
      `self.example.test:443:\tOID.2.16.840.1.101.3.4.2.1\t${fp}\t`,
    ]);
    expect(readFileSync(join(profile, 'cert_override.txt'), 'utf8').split('\n').slice(2, 4)).toEqual(lines);
  });

  it('no exception for a certificate that is not both self-signed and a CA (a CA file trusts through NSS alone)', () => {
    const leaf = selfSigned('leaf.example.test', ['basicConstraints=critical,CA:FALSE']);
    expect(firefoxExceptionsFor(mkdtempSync(join(dir, 'profile-')), leaf, ['https://leaf.example.test/'])).toEqual([]);
  });
});
