/** A throwaway CA and a leaf for `*.synth.test` (openssl), in a temporary folder. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestCerts {
  dir: string;
  caPem: string;
  leafPem: string;
  leafKey: string;
  /** leaf followed by the CA */
  chainPem: string;
}

export function makeTestCerts(names = ['a.synth.test', 'b.synth.test', 'c.synth.test']): TestCerts {
  const dir = mkdtempSync(join(tmpdir(), 'tlsrum-synth-ca-'));
  const f = (n: string) => join(dir, n);
  const ssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  ssl(
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    f('ca.key'),
    '-out',
    f('ca.pem'),
    '-days',
    '2',
    '-subj',
    '/CN=tlsrum synth test CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign',
  );
  ssl(
    'req',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    f('leaf.key'),
    '-out',
    f('leaf.csr'),
    '-subj',
    `/CN=${names[0]}`,
  );
  writeFileSync(
    f('leaf.ext'),
    `subjectAltName=${names.map((n) => `DNS:${n}`).join(',')}\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n`,
  );
  ssl(
    'x509',
    '-req',
    '-in',
    f('leaf.csr'),
    '-CA',
    f('ca.pem'),
    '-CAkey',
    f('ca.key'),
    '-CAcreateserial',
    '-out',
    f('leaf.pem'),
    '-days',
    '2',
    '-extfile',
    f('leaf.ext'),
  );
  const chain = f('chain.pem');
  writeFileSync(chain, execFileSync('cat', [f('leaf.pem'), f('ca.pem')]));
  return { dir, caPem: f('ca.pem'), leafPem: f('leaf.pem'), leafKey: f('leaf.key'), chainPem: chain };
}
