/** A lab CA and a leaf certificate for `host` (ECDSA P-256, two days), made with openssl in `dir`. */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function labCert(dir: string, host: string): { cert: string; key: string; ca: string } {
  const run = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  run(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'ca.key']);
  run([
    'req',
    '-x509',
    '-new',
    '-key',
    'ca.key',
    '-sha256',
    '-days',
    '2',
    '-subj',
    '/CN=tlsrum lab CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign',
    '-out',
    'ca.pem',
  ]);
  run(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'leaf.key']);
  run(['req', '-new', '-key', 'leaf.key', '-subj', `/CN=${host}`, '-out', 'leaf.csr']);
  writeFileSync(
    join(dir, 'leaf.ext'),
    `basicConstraints=critical,CA:FALSE\nextendedKeyUsage=serverAuth\nsubjectAltName=DNS:${host}\n`,
  );
  run([
    'x509',
    '-req',
    '-in',
    'leaf.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-days',
    '2',
    '-sha256',
    '-extfile',
    'leaf.ext',
    '-out',
    'leaf.pem',
  ]);
  return {
    cert: readFileSync(join(dir, 'leaf.pem'), 'utf8'),
    key: readFileSync(join(dir, 'leaf.key'), 'utf8'),
    ca: join(dir, 'ca.pem'),
  };
}
