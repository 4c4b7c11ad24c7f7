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

const openssl = (args: string[], cwd: string) =>
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });

export function makeLabCa(dir: string, dnsNames: readonly string[]): LabCa {
  mkdirSync(dir, { recursive: true });
  openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'ca.key'], dir);
  openssl(
    [
      'req',
      '-x509',
      '-new',
      '-key',
      'ca.key',
      '-sha256',
      '-days',
      '30',
      '-subj',
      '/CN=tlsrum lab CA',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
      '-out',
      'ca.pem',
    ],
    dir,
  );
  const leaf = issueLeaf(dir, 'leaf', dnsNames);
  return { dir, caCert: join(dir, 'ca.pem'), leafCert: leaf.cert, leafKey: leaf.key, leafSpki: leaf.spki };
}

export interface LabLeaf {
  cert: string;
  key: string;
  spki: string;
  /** Hex serial number (for the OCSP responder's index). */
  serial: string;
}

export interface LeafOptions {
  /** `ec` = ECDSA P-256 (default), `rsa:N` = RSA with an N-bit modulus. */
  key?: 'ec' | `rsa:${number}`;
  /** A certificate whose validity ended long ago (for the probe's expired-certificate finding). */
  expired?: boolean;
  /** The issuing CA's files `<issuer>.pem` / `<issuer>.key` in `dir` (default `ca`, the lab CA). */
  issuer?: string;
}

/** A leaf certificate `<name>.pem` / `<name>.key` in `dir`, signed by the CA made there by makeLabCa. */
export function issueLeaf(dir: string, name: string, dnsNames: readonly string[], options: LeafOptions = {}): LabLeaf {
  const p = (f: string) => join(dir, f);
  const key = options.key ?? 'ec';
  if (key === 'ec') openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', `${name}.key`], dir);
  else
    openssl(
      ['genpkey', '-algorithm', 'RSA', '-pkeyopt', `rsa_keygen_bits:${key.slice(4)}`, '-out', `${name}.key`],
      dir,
    );
  openssl(
    ['req', '-new', '-key', `${name}.key`, '-subj', `/CN=${dnsNames[0] ?? 'lab.test'}`, '-out', `${name}.csr`],
    dir,
  );
  writeFileSync(
    p(`${name}.ext`),
    [
      'basicConstraints=critical,CA:FALSE',
      `keyUsage=critical,digitalSignature${key === 'ec' ? '' : ',keyEncipherment'}`,
      'extendedKeyUsage=serverAuth',
      `subjectAltName=${dnsNames.map((n) => `DNS:${n}`).join(',')}`,
      '',
    ].join('\n'),
  );
  if (options.expired) {
    // `openssl x509 -days` takes only positive numbers; `openssl ca` takes explicit dates.
    writeFileSync(
      p('expired-ca.cnf'),
      [
        '[ca]',
        'default_ca = lab',
        '[lab]',
        `database = ${p('expired-index.txt')}`,
        `new_certs_dir = ${dir}`,
        `serial = ${p('expired-serial')}`,
        'default_md = sha256',
        'policy = any',
        'unique_subject = no',
        '[any]',
        'commonName = supplied',
        '',
      ].join('\n'),
    );
    writeFileSync(p('expired-index.txt'), '');
    writeFileSync(p('expired-serial'), '1000\n');
    openssl(
      [
        'ca',
        '-config',
        'expired-ca.cnf',
        '-batch',
        '-notext',
        '-cert',
        'ca.pem',
        '-keyfile',
        'ca.key',
        '-in',
        `${name}.csr`,
        '-out',
        `${name}.pem`,
        '-startdate',
        '20200101000000Z',
        '-enddate',
        '20200201000000Z',
        '-extfile',
        `${name}.ext`,
      ],
      dir,
    );
  } else {
    const issuer = options.issuer ?? 'ca';
    openssl(
      [
        'x509',
        '-req',
        '-in',
        `${name}.csr`,
        '-CA',
        `${issuer}.pem`,
        '-CAkey',
        `${issuer}.key`,
        '-CAcreateserial',
        '-days',
        '30',
        '-sha256',
        '-extfile',
        `${name}.ext`,
        '-out',
        `${name}.pem`,
      ],
      dir,
    );
  }
  const x = new X509Certificate(readFileSync(p(`${name}.pem`), 'utf8'));
  const spkiDer = x.publicKey.export({ type: 'spki', format: 'der' });
  return {
    cert: p(`${name}.pem`),
    key: p(`${name}.key`),
    spki: createHash('sha256').update(spkiDer).digest('base64'),
    serial: x.serialNumber,
  };
}

/**
 * An intermediate CA `<name>.pem` / `<name>.key` (ECDSA P-256) signed by `issuer` (default the lab CA), for
 * servers that send a longer chain.
 */
export function issueIntermediate(dir: string, name: string, issuer = 'ca'): { cert: string; key: string } {
  openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', `${name}.key`], dir);
  openssl(['req', '-new', '-key', `${name}.key`, '-subj', `/CN=tlsrum lab ${name}`, '-out', `${name}.csr`], dir);
  writeFileSync(join(dir, `${name}.ext`), 'basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n');
  openssl(
    [
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      `${issuer}.pem`,
      '-CAkey',
      `${issuer}.key`,
      '-CAcreateserial',
      '-days',
      '30',
      '-sha256',
      '-extfile',
      `${name}.ext`,
      '-out',
      `${name}.pem`,
    ],
    dir,
  );
  return { cert: join(dir, `${name}.pem`), key: join(dir, `${name}.key`) };
}

/**
 * A DER OCSP response saying "good" for `leaf`, signed by the lab CA (for nginx's `ssl_stapling_file` or
 * `openssl s_server -status_file`): valid for a day, the lab's own lifetime.
 */
export function ocspResponse(dir: string, leaf: LabLeaf, name: string): string {
  const subject = execFileSync('openssl', ['x509', '-in', leaf.cert, '-noout', '-subject', '-nameopt', 'compat'], {
    encoding: 'utf8',
  })
    .replace(/^subject=\s*/, '')
    .trim();
  writeFileSync(join(dir, `${name}-index.txt`), `V\t300101000000Z\t\t${leaf.serial}\tunknown\t${subject}\n`);
  openssl(
    [
      'ocsp',
      '-index',
      `${name}-index.txt`,
      '-rsigner',
      'ca.pem',
      '-rkey',
      'ca.key',
      '-CA',
      'ca.pem',
      '-issuer',
      'ca.pem',
      '-cert',
      leaf.cert,
      '-respout',
      `${name}.der`,
      '-ndays',
      '1',
    ],
    dir,
  );
  return join(dir, `${name}.der`);
}
