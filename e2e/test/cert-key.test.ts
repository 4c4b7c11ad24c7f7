/**
 * The crypto lens's DER reader (shared/src/cert) on real certificates made by the lab CA and openssl,
 * against Node's X509Certificate as the oracle: key type and size of the leaf, the self-issued test, and
 * the chain as sent from a chain as Firefox reports it (ending at the root).
 */
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chainAsSent, isSelfIssued, leafKey } from '@tlsrum/shared/cert';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueLeaf, makeLabCa, type LabCa } from '../lab/ca';

const der = (pemFile: string): Uint8Array => new Uint8Array(new X509Certificate(readFileSync(pemFile)).raw);

/** What Node says of the same certificate, in the record's terms. */
function oracle(cert: Uint8Array): { type: string; bits: number | null } {
  const key = new X509Certificate(cert).publicKey;
  const d = key.asymmetricKeyDetails ?? {};
  if (key.asymmetricKeyType === 'rsa' || key.asymmetricKeyType === 'rsa-pss')
    return { type: 'rsa', bits: d.modulusLength ?? null };
  if (key.asymmetricKeyType === 'ec')
    return { type: 'ecdsa', bits: { prime256v1: 256, secp384r1: 384, secp521r1: 521 }[d.namedCurve ?? ''] ?? null };
  if (key.asymmetricKeyType === 'ed25519') return { type: 'ed25519', bits: 256 };
  return { type: 'other', bits: null };
}

let dir: string;
let ca: LabCa;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tlsrum-cert-key-'));
  ca = makeLabCa(dir, ['a.lab.test']);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A self-signed certificate with a key openssl makes from `genpkey` arguments. */
function selfSigned(name: string, genpkey: string[]): Uint8Array {
  execFileSync('openssl', ['genpkey', ...genpkey, '-out', `${name}.key`], { cwd: dir, stdio: 'ignore' });
  execFileSync(
    'openssl',
    ['req', '-x509', '-new', '-key', `${name}.key`, '-subj', `/CN=${name}`, '-days', '2', '-out', `${name}.pem`],
    { cwd: dir, stdio: 'ignore' },
  );
  return der(join(dir, `${name}.pem`));
}

describe('leafKey', () => {
  it.each([
    ['ECDSA P-256 (lab CA leaf)', 'ec', { type: 'ecdsa', bits: 256 }],
    ['RSA-2048 (lab CA leaf)', 'rsa:2048', { type: 'rsa', bits: 2048 }],
    ['RSA-4096 (lab CA leaf)', 'rsa:4096', { type: 'rsa', bits: 4096 }],
    ['RSA-3072 (lab CA leaf)', 'rsa:3072', { type: 'rsa', bits: 3072 }],
  ] as const)('%s', (_, key, expected) => {
    const leaf = issueLeaf(dir, `leaf-${key.replace(':', '-')}`, ['a.lab.test'], { key });
    const cert = der(leaf.cert);
    expect(leafKey(cert)).toEqual(expected);
    expect(leafKey(cert)).toEqual(oracle(cert));
  });

  it.each([
    ['ECDSA P-384', ['-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-384'], { type: 'ecdsa', bits: 384 }],
    ['ECDSA P-521', ['-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-521'], { type: 'ecdsa', bits: 521 }],
    ['Ed25519', ['-algorithm', 'ED25519'], { type: 'ed25519', bits: 256 }],
    ['RSA-PSS 2048', ['-algorithm', 'RSA-PSS', '-pkeyopt', 'rsa_keygen_bits:2048'], { type: 'rsa', bits: 2048 }],
  ] as const)('%s (self-signed by openssl)', (name, args, expected) => {
    const cert = selfSigned(name.replace(/\W/g, ''), [...args]);
    expect(leafKey(cert)).toEqual(expected);
    expect(leafKey(cert)).toEqual(oracle(cert));
  });

  it('an Ed448 key is "other" with its size; malformed DER throws rather than guessing', () => {
    expect(leafKey(selfSigned('ed448', ['-algorithm', 'ED448']))).toEqual({ type: 'other', bits: 448 });
    const cert = der(ca.leafCert);
    expect(() => leafKey(cert.subarray(0, 40))).toThrow(/DER|certificate/);
    expect(() => leafKey(new Uint8Array([0x30, 0x03, 0x02, 0x01, 0x01]))).toThrow(/certificate/);
  });
});

describe('chainAsSent', () => {
  it('drops the trust anchor that ends a built chain (Firefox), keeps a sent chain and a lone self-signed leaf', () => {
    const leaf = der(ca.leafCert);
    const root = der(ca.caCert);
    expect(isSelfIssued(root)).toBe(true);
    expect(isSelfIssued(leaf)).toBe(false);
    expect(chainAsSent([leaf, root])).toEqual({ length: 1, bytes: leaf.length });
    expect(chainAsSent([leaf])).toEqual({ length: 1, bytes: leaf.length });
    expect(chainAsSent([root])).toEqual({ length: 1, bytes: root.length });
    expect(chainAsSent([])).toEqual({ length: 0, bytes: 0 });
  });
});
