/**
 * The crypto lens's pure parts: how a record's crypto fields are scored against a server's truth
 * (names compared in one spelling, absent fields counted as coverage, never as right), and how the
 * NetLog's handshake messages tell a stapled OCSP response.
 */
import { describe, expect, it } from 'vitest';
import { cryptoEffects, renderCryptoSection } from '../accuracy/crypto-report';
import { cryptoTruthOf, normalise, scoreCrypto } from '../accuracy/crypto-score';
import type { Sample } from '../accuracy/samples';
import type { Truth } from '../accuracy/truth';
import { SERVERS } from '../lab/servers';
import { stapledIn } from '@tlsrum/synth/netlog';

const server = (id: string) => SERVERS.find((s) => s.id === id)!;
const truth = (o: Partial<Truth> = {}): Truth => ({
  server: 'rsa4096',
  addr: '127.0.0.3',
  port: 1,
  conn: 1,
  t: 0,
  tlsVersion: '1.3',
  resumed: false,
  earlyData: false,
  alpn: 'h2',
  cipher: 'TLS_AES_128_GCM_SHA256',
  group: 'X25519',
  from: 'nginx-http',
  ...o,
});

function sample(
  id: string,
  claimed: Sample['cryptoClaimed'],
  o: Partial<Sample> = {},
  t = truth({ server: id as Truth['server'] }),
): Sample {
  return {
    arm: 'synthetic',
    browser: 'chromium',
    mode: 'cold',
    prime: false,
    profile: 'continent',
    rttMs: 80,
    server: id as Sample['server'],
    host: `a.${id}.lab.test`,
    entryType: 'navigation',
    connection: `${id}|${Math.random()}`,
    truth: t,
    expected: { tlsVersion: '1.3', resumed: t.resumed, handshakeClass: '1rtt', rttMultiple: 1 },
    claimed: {
      tlsVersion: '1.3',
      tlsVersionSource: 'observed',
      resumed: false,
      resumedSource: 'observed',
      handshakeClass: '1rtt',
      handshakeClassSource: 'timing',
      protocol: 'h2',
      tcp: 80,
      tls: 80,
    },
    proxy: null,
    cryptoTruth: cryptoTruthOf(server(id), t, 924),
    cryptoClaimed: claimed,
    ...o,
  };
}

describe('crypto fields against the server', () => {
  it('compares names in one spelling', () => {
    expect(normalise('group', 'x25519')).toBe(normalise('group', 'X25519'));
    expect(normalise('group', 'P256')).toBe(normalise('group', 'prime256v1'));
    expect(normalise('group', 'mlkem768x25519')).toBe(normalise('group', 'X25519MLKEM768'));
    expect(normalise('group', 'X25519')).not.toBe(normalise('group', 'X25519MLKEM768'));
    expect(normalise('cipher', 'ECDHE-ECDSA-AES128-GCM-SHA256')).toBe(
      normalise('cipher', 'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256'),
    );
    expect(normalise('signatureScheme', 'RSA-PSS-SHA256')).toBe(normalise('signatureScheme', 'rsa_pss_rsae_sha256'));
    expect(normalise('signatureScheme', 'ECDSA-P256-SHA256')).toBe(
      normalise('signatureScheme', 'ecdsa_secp256r1_sha256'),
    );
  });

  it('a right record scores 1, a wrong field counts against it, an absent one only against coverage', () => {
    const right = {
      cipher: 'TLS_AES_128_GCM_SHA256',
      group: 'x25519',
      signatureScheme: 'rsa_pss_rsae_sha256',
      certChainLength: 1,
      certChainBytes: 924,
      certKeyType: 'rsa',
      certKeyBits: 4096,
      ocspStapled: false,
      ech: false,
    };
    expect(scoreCrypto([sample('rsa4096', right)])).toMatchObject({ accuracy: 1, n: 9, coverage: 1 });
    const wrong = scoreCrypto([sample('rsa4096', { ...right, certKeyBits: 2048 })]);
    expect(wrong.accuracy).toBeCloseTo(8 / 9);
    expect(wrong.fields.certKeyBits.wrong).toEqual(['rsa4096 chromium synthetic: 2048 ≠ 4096']);
    const partial = scoreCrypto([sample('rsa4096', { cipher: 'TLS_AES_128_GCM_SHA256' })]);
    expect(partial).toMatchObject({ accuracy: 1, n: 1 });
    expect(partial.coverage).toBeCloseTo(1 / 9);
  });

  it('stapling is the full handshake’s fact; Firefox is not expected to state it', () => {
    const resumed = sample('ocsp', { ocspStapled: false }, {}, truth({ server: 'ocsp', resumed: true }));
    expect(resumed.cryptoTruth!.ocspStapled).toBeNull();
    expect(scoreCrypto([resumed]).n).toBe(0);
    expect(scoreCrypto([sample('ocsp', { ocspStapled: true })])).toMatchObject({ accuracy: 1, coverage: 1 / 9 });
    expect(scoreCrypto([sample('ocsp', { ech: false }, { browser: 'firefox' })]).coverage).toBeCloseTo(1 / 8);
  });
});

describe('crypto effects', () => {
  it('median TLS phase per server and its difference from the baseline, per browser and profile', () => {
    const at = (id: string, tls: number, browser: Sample['browser'] = 'chromium') => {
      const x = sample(id, {});
      return { ...x, browser, claimed: { ...x.claimed, tls } };
    };
    const samples = [
      at('ecdsa256', 80),
      at('ecdsa256', 82),
      at('rsa4096', 90),
      at('rsa4096', 94),
      at('rsa2048', 81),
      at('ecdsa256', 85, 'firefox'),
      at('rsa4096', 99, 'firefox'),
    ];
    const key = cryptoEffects(samples).find((e) => e.title === 'Certificate key')!;
    expect(key.rows.map((r) => r.browser)).toEqual(['chromium', 'firefox']);
    expect(key.rows[0]!.cells).toMatchObject([
      { server: 'ecdsa256', n: 2, medianTls: 81, delta: 0 },
      { server: 'rsa2048', n: 1, medianTls: 81, delta: 0 },
      { server: 'rsa4096', n: 2, medianTls: 92, delta: 11 },
    ]);
    expect(key.rows[1]!.cells[2]).toMatchObject({ medianTls: 99, delta: 14 });
    // Resumed connections and other arms are left out.
    expect(
      cryptoEffects([
        { ...at('rsa4096', 500), arm: 'rum' },
        { ...at('rsa4096', 500), truth: truth({ resumed: true }) },
      ])[0]!.rows,
    ).toEqual([]);
    expect(renderCryptoSection(samples).join('\n')).toContain(
      '| chromium | continent (80 ms) | 81.0 (2) | 81.0 (1) | +0.0 | – | 92.0 (2) | +11.0 | – |',
    );
  });
});

describe('NetLog: a stapled OCSP response', () => {
  // TLS 1.3 Certificate: type 11, 3-byte length, context (0), 3-byte list length, entries of a 3-byte
  // certificate and 2-byte extensions.
  const tls13Certificate = (extensions: Buffer) => {
    const cert = Buffer.alloc(20, 0x30);
    const entry = Buffer.concat([
      Buffer.from([0, 0, cert.length]),
      cert,
      Buffer.from([extensions.length >> 8, extensions.length & 255]),
      extensions,
    ]);
    const body = Buffer.concat([Buffer.from([0, 0, 0, entry.length]), entry]);
    return Buffer.concat([Buffer.from([11, 0, 0, body.length]), body]);
  };

  it('reads the status_request extension of the TLS 1.3 leaf entry', () => {
    const ocsp = Buffer.from([0, 5, 0, 3, 1, 0xaa, 0xbb]);
    expect(stapledIn(11, tls13Certificate(ocsp))).toBe(true);
    expect(stapledIn(11, tls13Certificate(Buffer.alloc(0)))).toBe(false);
    expect(stapledIn(11, tls13Certificate(Buffer.from([0, 18, 0, 0])))).toBe(false);
  });

  it('TLS 1.2: the CertificateStatus message; its Certificate message says nothing', () => {
    expect(stapledIn(22, Buffer.from([22, 0, 0, 1, 1]))).toBe(true);
    const cert = Buffer.alloc(20, 0x30);
    const list = Buffer.concat([Buffer.from([0, 0, cert.length]), cert]);
    expect(
      stapledIn(11, Buffer.concat([Buffer.from([11, 0, 0, list.length + 3, 0, 0, list.length]), list])),
    ).toBeNull();
    expect(stapledIn(2, Buffer.from([2, 0, 0, 0]))).toBeNull();
  });
});
