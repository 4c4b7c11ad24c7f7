/**
 * The command line's findings, the dashboard's checklist and the change alerts give one verdict per check,
 * because all three read the probe's list of checks: shown on a crafted result where only TLS 1.2 resumes
 * on a server that speaks TLS 1.3 (browsers get TLS 1.3 there and never resume).
 */
import { describe, expect, it } from 'vitest';
import type { ProbeResult } from '@tlsrum/shared';
import type { ProbeIdentity } from '@tlsrum/probe';
import { CHECKLIST } from '@tlsrum/probe/checks';
import { findings } from '@tlsrum/probe/findings';
import { evaluateProbeChecks } from '../../src/probes/changes';

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
const only12: ProbeResult = { ...good, resumption: { '1.2': true, '1.3': false, ticketLifetimeS: 7200 } };
const identity: ProbeIdentity = { leafSpkiSha256: 'k1', chainSha256: 'c1' };

describe('one verdict for "session resumption works" where only TLS 1.2 resumes', () => {
  it('the command line says it does not work', () => {
    const lines = findings(only12).map((f) => `${f.level} ${f.text}`);
    expect(lines.filter((l) => /resum/i.test(l))).toEqual([
      'bad Session resumption does not work on TLS 1.3: every returning visitor gets a full handshake, and the server signs again each time (no extra round trip on TLS 1.3, but no 0-RTT either).',
    ]);
  });

  it('the dashboard checklist marks it not done', () => {
    expect(CHECKLIST.find((c) => c.label === 'Session resumption (tickets)')!.read(only12).status).toBe('fail');
  });

  it('the change alert fires when a server that resumed TLS 1.3 keeps only TLS 1.2', () => {
    const checks = evaluateProbeChecks('www.example.test', [
      { at: 1, result: good, identity },
      { at: 2, result: only12, identity },
    ]);
    expect(checks.filter((c) => c.status === 'firing').map((c) => [c.check, c.since])).toEqual([
      ['probe_resumption_lost', 2],
    ]);
  });
});
