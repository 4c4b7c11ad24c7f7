/**
 * The probe change checks on histories built from one probe result: what fires, from which probe, and what
 * never does (a feature never seen on; an unreachable probe in between).
 */
import { describe, expect, it } from 'vitest';
import type { ProbeResult } from '@tlsrum/shared';
import { evaluateProbeChecks, type ProbeSnapshot } from '../../src/probes/changes';
import type { ProbeIdentity } from '@tlsrum/probe';

const good: ProbeResult = {
  url: 'https://www.example.test/',
  host: 'www.example.test',
  phases: { dns: 1, tcp: 10, tls: 12, ttfb: 20 },
  tls: {
    versions: { '1.0': false, '1.1': false, '1.2': true, '1.3': true },
    negotiated: { version: '1.3', cipher: 'TLS_AES_128_GCM_SHA256', group: 'X25519', alpn: 'h2' },
  },
  pq: { supported: null },
  cert: {
    chainLength: 2,
    chainBytes: 2400,
    leaf: { keyType: 'ecdsa', keyBits: 256, signatureAlgorithm: 'ecdsa-with-SHA256', issuer: 'R3', daysToExpiry: 60 },
  },
  ocsp: { stapled: true },
  resumption: { '1.2': true, '1.3': true, ticketLifetimeS: 7200 },
  earlyData: { allowed: false },
  h3: { advertised: true, altSvc: 'h3=":443"' },
  errors: [],
};
const unreachable: ProbeResult = {
  ...good,
  phases: { dns: null, tcp: null, tls: null, ttfb: null },
  tls: {
    versions: { '1.0': null, '1.1': null, '1.2': null, '1.3': null },
    negotiated: { version: null, cipher: null, group: null, alpn: null },
  },
  cert: { chainLength: 0, chainBytes: 0, leaf: null },
  ocsp: { stapled: null },
  resumption: { '1.2': null, '1.3': null, ticketLifetimeS: null },
  earlyData: { allowed: null },
  h3: { advertised: false, altSvc: null },
  errors: ['tcp: cannot connect'],
};
const id: ProbeIdentity = { leafSpkiSha256: 'k1', chainSha256: 'c1' };
const snap = (at: number, change: (r: ProbeResult) => ProbeResult = (r) => r, identity = id): ProbeSnapshot => ({
  at,
  result: change(structuredClone(good)),
  identity,
});
const firing = (h: ProbeSnapshot[]) =>
  Object.fromEntries(
    evaluateProbeChecks('www.example.test', h)
      .filter((c) => c.status === 'firing')
      .map((c) => [c.check, c.since]),
  );

describe('probe change checks', () => {
  it('a steady configuration fires nothing; one probe is not enough to say "changed"', () => {
    expect(firing([snap(1), snap(2), snap(3)])).toEqual({});
    const one = evaluateProbeChecks('www.example.test', [snap(1)]);
    expect(one.find((c) => c.check === 'probe_leaf_changed')!.status).toBe('insufficient_data');
  });

  it('each loss fires from the first probe that sees it and stays firing while it lasts', () => {
    const off = (r: ProbeResult) => ({
      ...r,
      tls: { ...r.tls, versions: { ...r.tls.versions, '1.3': false } },
      resumption: { '1.2': false, '1.3': null, ticketLifetimeS: null },
      ocsp: { stapled: false },
      h3: { advertised: false, altSvc: null },
    });
    expect(firing([snap(1), snap(2, off), snap(3, off)])).toEqual({
      probe_resumption_lost: 2,
      probe_tls13_disabled: 2,
      probe_h3_lost: 2,
      probe_ocsp_lost: 2,
    });
  });

  it('a feature never seen on is a recommendation, not an alert', () => {
    const noOcsp = (r: ProbeResult) => ({ ...r, ocsp: { stapled: false } });
    expect(firing([snap(1, noOcsp), snap(2, noOcsp)])).toEqual({});
  });

  it('an unreachable probe in between is skipped, not read as "gone"', () => {
    expect(
      firing([
        snap(1),
        snap(2, () => structuredClone(unreachable), { leafSpkiSha256: null, chainSha256: null }),
        snap(3),
      ]),
    ).toEqual({});
  });

  it('a new key or chain fires on the probe that sees it, until the next probe', () => {
    const renewed = { leafSpkiSha256: 'k1', chainSha256: 'c2' };
    const rolled = { leafSpkiSha256: 'k2', chainSha256: 'c3' };
    expect(firing([snap(1), snap(2, undefined, renewed)])).toEqual({ probe_chain_changed: 2 });
    expect(firing([snap(1), snap(2, undefined, renewed), snap(3, undefined, renewed)])).toEqual({});
    expect(firing([snap(1), snap(2, undefined, rolled)])).toEqual({ probe_chain_changed: 2, probe_leaf_changed: 2 });
  });

  it('a certificate expiring in under 14 days fires from the first probe under 14 days', () => {
    const days = (d: number) => (r: ProbeResult) => ({
      ...r,
      cert: { ...r.cert, leaf: { ...r.cert.leaf!, daysToExpiry: d } },
    });
    expect(firing([snap(1, days(15)), snap(2, days(14))])).toEqual({});
    expect(firing([snap(1, days(15)), snap(2, days(13)), snap(3, days(12))])).toEqual({ probe_cert_expiring: 2 });
    const expired = evaluateProbeChecks('www.example.test', [snap(1, days(-2))]).find(
      (c) => c.check === 'probe_cert_expiring',
    )!;
    expect(expired.summary).toBe('www.example.test: the certificate expired 2 day(s) ago');
  });
});
