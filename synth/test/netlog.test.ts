/** NetLog parsing on excerpts of real Chromium 156 NetLogs (fixtures/: event subsets, certificates elided). */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseNetLog } from '../src/netlog';
import { cdpCipherName, cipherSuiteName, groupName, signatureSchemeName, tlsVersionOf } from '../src/names';
import { securityOf } from '../src/observe-chromium';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');

describe('NetLog', () => {
  it('TCP: each socket’s TLS parameters and is_resumed (a full, then a resumed TLS 1.3 handshake)', () => {
    const sockets = parseNetLog(fixture('netlog-tcp-tls13.json'));
    expect(sockets.get(105)).toMatchObject({
      transport: 'tcp',
      isResumed: false,
      version: 'TLS 1.3',
      cipherSuite: 0x1302,
      keyExchangeGroup: 29,
      peerSignatureAlgorithm: 0x0403,
      nextProto: 'http/1.1',
      certificates: 1,
      localAddress: '127.0.0.1:34128',
      remoteAddress: '127.0.0.1:39525',
    });
    expect(sockets.get(116)).toMatchObject({ isResumed: true, version: 'TLS 1.3' });
  });

  it('reads a log cut short (a browser that crashed never writes the closing brackets)', () => {
    const text = fixture('netlog-tcp-tls13.json');
    const cut = text.slice(0, text.lastIndexOf('\n]}')).slice(0, -40);
    const sockets = parseNetLog(cut);
    expect(sockets.get(105)?.isResumed).toBe(false);
  });

  it('QUIC: TLS 1.3; accepted 0-RTT proves resumption, otherwise resumption stays unknown', () => {
    const sockets = parseNetLog(fixture('netlog-quic.json'));
    const quic = [...sockets.values()].filter((s) => s.transport === 'quic');
    expect(quic).toHaveLength(2);
    const [first, second] = quic;
    expect(first).toMatchObject({ version: 'TLS 1.3', nextProto: 'h3', isResumed: null, earlyDataAccepted: false });
    expect(second).toMatchObject({ version: 'TLS 1.3', isResumed: true, earlyDataAccepted: true });
  });

  it('names code points the IANA way, and CDP names where the NetLog has none', () => {
    expect(cipherSuiteName(0x1301)).toBe('TLS_AES_128_GCM_SHA256');
    expect(cipherSuiteName(0xc02b)).toBe('TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256');
    expect(cipherSuiteName(0xabcd)).toBe('0xabcd');
    expect(groupName(0x11ec)).toBe('X25519MLKEM768');
    expect(signatureSchemeName(0x0804)).toBe('rsa_pss_rsae_sha256');
    expect(tlsVersionOf('TLS 1.2')).toBe('1.2');
    expect(tlsVersionOf('TLSv1.3')).toBe('1.3');
    expect(tlsVersionOf('QUIC')).toBe('1.3');
    expect(tlsVersionOf('TLS 1.1')).toBeNull();
    expect(cdpCipherName('AES_128_GCM', '1.3')).toBe('TLS_AES_128_GCM_SHA256');
    const fromCdp = securityOf(null, {
      url: 'https://x/',
      status: 200,
      protocol: 'h3',
      connectionId: 1,
      connectionReused: false,
      headers: {},
      securityDetails: { protocol: 'QUIC', cipher: 'AES_128_GCM', keyExchangeGroup: 'X25519' },
    });
    expect(fromCdp).toEqual({
      evidence: 'observed',
      tlsVersion: '1.3',
      cipher: 'TLS_AES_128_GCM_SHA256',
      group: 'x25519',
    });
  });
});
