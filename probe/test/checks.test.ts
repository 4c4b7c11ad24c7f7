/**
 * The probe's list of checks: each one complete (ids unique, advice with the nginx and the Caddy fix, a
 * loss alert only under a known alert name), and each sentence the command line prints read from the list —
 * including the meaning of "session resumption works": on the version browsers get from the server.
 */
import { describe, expect, it } from 'vitest';
import type { ProbeResult } from '@tlsrum/shared';
import { PROBE_CHECKS, SCENARIOS } from '@tlsrum/shared/query';
import { CHECKLIST, CONFIG_CHECKS, sentence } from '../src/checks';
import { findings } from '../src/findings';

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
const tickets = CONFIG_CHECKS.find((c) => c.id === 'tickets')!;

describe('the list of checks', () => {
  it('each check has its own id, a sentence per verdict and advice with the nginx and the Caddy fix', () => {
    expect(new Set(CONFIG_CHECKS.map((c) => c.id)).size).toBe(CONFIG_CHECKS.length);
    for (const c of CONFIG_CHECKS) {
      expect(c.title.length, c.id).toBeGreaterThan(0);
      expect(c.failureTitle.length, c.id).toBeGreaterThan(0);
      expect(c.advice.length, c.id).toBeGreaterThan(0);
      expect(c.fix.nginx.length, c.id).toBeGreaterThan(0);
      expect(c.fix.caddy.length, c.id).toBeGreaterThan(0);
      if (c.scenario !== null) expect(SCENARIOS, c.id).toContain(c.scenario);
    }
  });

  it('a loss alert is named once, by a known probe alert', () => {
    const alerts = CONFIG_CHECKS.flatMap((c) => (c.lossAlert ? [c.lossAlert.check] : []));
    expect(new Set(alerts).size).toBe(alerts.length);
    for (const a of alerts) expect(PROBE_CHECKS).toContain(a);
    expect(alerts.sort()).toEqual([
      'probe_h3_lost',
      'probe_ocsp_lost',
      'probe_resumption_lost',
      'probe_tls13_disabled',
    ]);
  });

  it('the dashboard checklist keeps its rows and their order', () => {
    expect(CHECKLIST.map((c) => c.id)).toEqual(['tls13', 'tickets', 'zero_rtt', 'h3', 'ocsp', 'chain', 'leaf', 'pq']);
  });

  it('every finding after the errors is the sentence of one check read from the result', () => {
    const texts = findings(good).map((f) => f.text);
    const expected = CONFIG_CHECKS.flatMap((c) => {
      const reading = c.read(good);
      const s = sentence(c, reading);
      return s !== null && (reading.status !== 'pass' || c.level.pass !== null) ? [s] : [];
    });
    expect(texts).toEqual(expected);
    expect(texts).toContain(
      'Returning visitors resume their session (quicker handshake) on TLS 1.3; tickets are valid for 120 minutes.',
    );
  });
});

describe('session resumption: on the version browsers get', () => {
  it('a TLS 1.3 server that resumes TLS 1.2 only fails, on the command line and on the checklist', () => {
    const only12: ProbeResult = { ...good, resumption: { '1.2': true, '1.3': false, ticketLifetimeS: 7200 } };
    expect(tickets.read(only12).status).toBe('fail');
    expect(findings(only12)).toContainEqual({
      level: 'bad',
      text: 'Session resumption does not work on TLS 1.3: returning visitors pay for a full handshake every time.',
    });
  });

  it('a TLS 1.2-only server that resumes passes; one that does not, fails', () => {
    const tls12: ProbeResult = {
      ...good,
      tls: { versions: { ...good.tls.versions, '1.3': false }, negotiated: { ...good.tls.negotiated, version: '1.2' } },
      resumption: { '1.2': true, '1.3': null, ticketLifetimeS: null },
    };
    expect(tickets.read(tls12)).toEqual({ status: 'pass', detail: 'TLS 1.2 (the newest version this server accepts)' });
    const none = { ...tls12, resumption: { '1.2': false, '1.3': null, ticketLifetimeS: null } };
    expect(tickets.read(none).status).toBe('fail');
  });

  it('unmeasured resumption is unknown, never a failure', () => {
    expect(tickets.read({ ...good, resumption: { '1.2': true, '1.3': null, ticketLifetimeS: null } }).status).toBe(
      'unknown',
    );
  });
});
