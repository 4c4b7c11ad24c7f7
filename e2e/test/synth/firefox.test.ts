/**
 * The runner with real Firefox ESR (WebDriver BiDi + the helper add-on) against a real nginx.
 */
import { describe, expect, it } from 'vitest';
import { Value } from 'typebox/value';
import { HandshakeRecord } from '@tlsrum/shared';
import { runSynthetic, type SyntheticOptions } from '@tlsrum/synth';
import { pemChainBytes } from '../../lab/crypto-lab';
import { startNginx } from './nginx';
import { labOptions, useTestServer } from './setup';

const lab = useTestServer(startNginx);
const base = (): Omit<SyntheticOptions, 'urls'> => ({ browser: 'firefox', ...labOptions(lab.certs) });

/** nginx's access log lines for a.synth.test's page: [protocol, cipher, reused, connection]. */
const pageLines = (proto: string) =>
  lab.server
    .accessLog()
    .map((l) => l.split(' '))
    .filter((f) => f[0] === 'a.synth.test' && f[1] === proto && f[5] === '/page');

describe('synthetic runner, Firefox', () => {
  it('TLS 1.2, warm: version, cipher and group observed; the resumed visit has no key exchange (observed), as nginx logged', async () => {
    const r = await runSynthetic({
      ...base(),
      urls: [`https://a.synth.test:${lab.server.t12}/page`],
      mode: 'warm',
      runs: 1,
    });
    expect(r.failedVisits).toBe(0);
    expect(r.browser.name).toBe('firefox');
    expect(r.browser.major).toBeGreaterThan(100);
    const [prime, warm] = r.visits;
    const nav = (i: number) => r.visits[i]!.records.find((x) => x.entryType === 'navigation')!;
    expect(prime!.prime).toBe(true);
    expect(nav(0)).toMatchObject({
      tlsVersion: '1.2',
      tlsVersionSource: 'observed',
      resumed: false,
      resumedSource: 'observed',
      group: 'x25519',
    });
    expect(nav(1)).toMatchObject({
      tlsVersion: '1.2',
      tlsVersionSource: 'observed',
      resumed: true,
      resumedSource: 'observed',
    });
    expect(nav(1).group).toBeUndefined();
    for (const i of [0, 1]) {
      expect(nav(i).cipher).toBe('TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256');
      expect(nav(i).browser).toBe('firefox');
    }
    // The chain Firefox built (leaf, then the trusted CA) minus the self-issued CA: the leaf alone, though
    // this server also sends the CA (Firefox cannot tell). Never a stapling claim: usedOcsp is not stapling.
    const leafBytes = pemChainBytes(lab.certs.leafPem)[0];
    expect(nav(0)).toMatchObject({
      certKeyType: 'ecdsa',
      certKeyBits: 256,
      certChainLength: 1,
      certChainBytes: leafBytes,
      ech: false,
    });
    expect(nav(0).ocspStapled).toBeUndefined();
    // What nginx said on the response itself (X-TLS), as BiDi delivered it.
    const header = (i: number) =>
      r.visits[i]!.connections.find((c) => c.kind === 'new' && c.entryType === 'navigation')!.responseHeaders['x-tls'];
    expect(header(0)).toMatch(/^TLSv1\.2 \. \d+$/);
    expect(header(1)).toMatch(/^TLSv1\.2 r \d+$/);
    // nginx: two connections for the page, full then resumed.
    expect(pageLines('TLSv1.2').map((f) => f[3])).toEqual(['.', 'r']);
    expect(new Set(pageLines('TLSv1.2').map((f) => f[4])).size).toBe(2);
    // Cross-origin without Timing-Allow-Origin: counted, not measured.
    expect(warm!.counts.opaque).toBe(1);
    for (const rec of r.records) expect(Value.Check(HandshakeRecord, rec)).toBe(true);
  });

  it('TLS 1.3, warm: resumption is not reported by Firefox, so it is inferred from the earlier handshake, never claimed as observed', async () => {
    const r = await runSynthetic({
      ...base(),
      urls: [`https://a.synth.test:${lab.server.t13}/page`],
      mode: 'warm',
      runs: 1,
    });
    expect(r.failedVisits).toBe(0);
    const nav = (i: number) => r.visits[i]!.records.find((x) => x.entryType === 'navigation')!;
    // No earlier handshake: resumption unknown, and never 0-RTT (a loaded machine's loopback timings
    // once read as one; 0-RTT is inferred only after a handshake with the host).
    expect(nav(0)).toMatchObject({
      tlsVersion: '1.3',
      tlsVersionSource: 'observed',
      resumed: null,
      resumedSource: 'unknown',
    });
    expect(nav(0).handshakeClass).not.toBe('0rtt');
    expect(nav(1)).toMatchObject({
      tlsVersion: '1.3',
      tlsVersionSource: 'observed',
      resumed: true,
      resumedSource: 'inferred',
    });
    expect(nav(1).cipher).toMatch(/^TLS_(AES_(128|256)_GCM_SHA(256|384)|CHACHA20_POLY1305_SHA256)$/);
    expect(pageLines('TLSv1.3').map((f) => f[3])).toEqual(['.', 'r']);
  });
});
