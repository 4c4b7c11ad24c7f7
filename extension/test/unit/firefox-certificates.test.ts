/**
 * The certificate facts the background script reads from Firefox's `certificates` (with rawDER): real
 * certificates made by openssl, Node's X509Certificate as the oracle for the key.
 */
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { certificateFacts, fromFirefox } from '../../src/background/firefox-security';

const dir = mkdtempSync(join(tmpdir(), 'tlsrum-fx-certs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
openssl(
  'req',
  '-x509',
  '-newkey',
  'ec',
  '-pkeyopt',
  'ec_paramgen_curve:P-256',
  '-nodes',
  '-keyout',
  'ca.key',
  '-out',
  'ca.pem',
  '-days',
  '2',
  '-subj',
  '/CN=test CA',
);
openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'leaf.key', '-out', 'leaf.csr', '-subj', '/CN=a.test');
openssl(
  'x509',
  '-req',
  '-in',
  'leaf.csr',
  '-CA',
  'ca.pem',
  '-CAkey',
  'ca.key',
  '-CAcreateserial',
  '-out',
  'leaf.pem',
  '-days',
  '2',
);
const raw = (f: string) => new X509Certificate(readFileSync(join(dir, f))).raw;
/** A CertificateInfo as Firefox hands it over: rawDER as an array of numbers. */
const info = (f: string) => ({ rawDER: [...raw(f)] });

describe('certificateFacts (Firefox rawDER)', () => {
  it('reads the leaf key and the chain as sent from the built chain', () => {
    const leaf = raw('leaf.pem');
    expect(new X509Certificate(leaf).publicKey.asymmetricKeyDetails?.modulusLength).toBe(2048);
    expect(certificateFacts([info('leaf.pem'), info('ca.pem')])).toEqual({
      certChainLength: 1,
      certChainBytes: leaf.length,
      certKeyType: 'rsa',
      certKeyBits: 2048,
    });
    // The trust anchor alone (a self-signed server certificate) is what was sent.
    expect(certificateFacts([info('ca.pem')])).toMatchObject({
      certChainLength: 1,
      certKeyType: 'ecdsa',
      certKeyBits: 256,
    });
  });

  it('claims nothing when a DER is missing or malformed', () => {
    expect(certificateFacts([info('leaf.pem'), {}])).toEqual({});
    expect(certificateFacts([{ rawDER: [0x30, 0x03, 0x02, 0x01, 0x01] }])).toEqual({});
    expect(certificateFacts(undefined)).toEqual({});
  });

  it('fromFirefox carries ECH and the certificate facts, never usedOcsp as stapling', () => {
    const s = fromFirefox({
      state: 'secure',
      protocolVersion: 'TLSv1.3',
      keaGroupName: 'X25519MLKEM768',
      certificates: [info('leaf.pem'), info('ca.pem')],
      usedEch: true,
      ...{ usedOcsp: true },
    });
    expect(s).toMatchObject({
      group: 'X25519MLKEM768',
      certKeyType: 'rsa',
      certKeyBits: 2048,
      certChainLength: 1,
      ech: true,
    });
    expect(s).not.toHaveProperty('ocspStapled');
  });
});
