/**
 * The lab's certificate authority, made fresh at every start with openssl (ECDSA P-256: its signatures
 * cost a few microseconds, so the servers' handshake CPU time stays small against the injected RTT).
 * Nothing is installed anywhere: Chromium accepts the leaf by its SPKI hash, Firefox gets the CA in its
 * own profile (certutil).
 */
import { execFileSync } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface LabCa {
  dir: string;
  caCert: string;
  leafCert: string;
  leafKey: string;
  /** base64 SHA-256 of the leaf's SubjectPublicKeyInfo, for Chromium's --ignore-certificate-errors-spki-list. */
  leafSpki: string;
}

const openssl = (args: string[], cwd: string) => execFileSync('openssl', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });

export function makeLabCa(dir: string, dnsNames: readonly string[]): LabCa {
  mkdirSync(dir, { recursive: true });
  const p = (f: string) => join(dir, f);
  openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'ca.key'], dir);
  openssl(['req', '-x509', '-new', '-key', 'ca.key', '-sha256', '-days', '30', '-subj', '/CN=tlsrum lab CA', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign', '-out', 'ca.pem'], dir);
  openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'leaf.key'], dir);
  openssl(['req', '-new', '-key', 'leaf.key', '-subj', '/CN=lab.test', '-out', 'leaf.csr'], dir);
  writeFileSync(
    p('leaf.ext'),
    [
      'basicConstraints=critical,CA:FALSE',
      'keyUsage=critical,digitalSignature',
      'extendedKeyUsage=serverAuth',
      `subjectAltName=${dnsNames.map((n) => `DNS:${n}`).join(',')}`,
      '',
    ].join('\n'),
  );
  openssl(['x509', '-req', '-in', 'leaf.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '30', '-sha256', '-extfile', 'leaf.ext', '-out', 'leaf.pem'], dir);
  const leafPem = readFileSync(p('leaf.pem'), 'utf8');
  const spkiDer = new X509Certificate(leafPem).publicKey.export({ type: 'spki', format: 'der' });
  return {
    dir,
    caCert: p('ca.pem'),
    leafCert: p('leaf.pem'),
    leafKey: p('leaf.key'),
    leafSpki: createHash('sha256').update(spkiDer).digest('base64'),
  };
}
