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
      'Returning visitors resume their session on TLS 1.3; tickets are valid for 120 minutes: the server skips the certificate signature for them (less CPU; a TLS 1.3 handshake takes one round trip either way).',
    );
  });

  it('every failed check carries its advice and its nginx and Caddy directive, exactly as the list declares them', () => {
    // One result on which every check fails (each check reads only its own facts).
    const bad: ProbeResult = {
      ...good,
      tls: {
        versions: { '1.0': true, '1.1': true, '1.2': true, '1.3': false },
        negotiated: { version: '1.2', cipher: 'ECDHE-RSA-AES128-GCM-SHA256', group: 'X25519', alpn: 'http/1.1' },
      },
      pq: { supported: false },
      cert: {
        chainLength: 3,
        chainBytes: 5600,
        leaf: {
          keyType: 'rsa',
          keyBits: 4096,
          signatureAlgorithm: 'sha256WithRSAEncryption',
          issuer: 'R3',
          daysToExpiry: 3,
        },
      },
      ocsp: { stapled: false, responder: true },
      resumption: { '1.2': false, '1.3': null, ticketLifetimeS: null },
      earlyData: { allowed: false },
      h3: { advertised: false, altSvc: null },
    };
    const byCheck = new Map(findings(bad).map((f) => [f.check, f]));
    for (const c of CONFIG_CHECKS) {
      expect(c.read(bad).status, c.id).toBe('fail');
      expect(byCheck.get(c.id)?.advice, c.id).toEqual({ text: c.advice, nginx: c.fix.nginx, caddy: c.fix.caddy });
    }
    // A check that passes or cannot be measured gives no advice.
    for (const f of findings({ ...good, earlyData: { allowed: true } })) expect(f.advice, f.check).toBeUndefined();
  });
});

describe('OCSP stapling: only where there is a status to staple', () => {
  const ocsp = CONFIG_CHECKS.find((c) => c.id === 'ocsp')!;
  const selfSigned: ProbeResult = { ...good, ocsp: { stapled: false, responder: false } };

  it('a certificate naming no OCSP service (self-signed, private CA) gets no warning but the reason it does not apply', () => {
    expect(ocsp.read(selfSigned).status).toBe('unknown');
    const said = findings(selfSigned).filter((f) => f.check === 'ocsp');
    expect(said).toEqual([
      {
        level: 'info',
        check: 'ocsp',
        text: 'OCSP stapling does not apply here: the certificate names no OCSP service to ask (as self-signed and privately issued certificates, and some public ones, do), so there is no certificate status to staple and browsers have none to fetch.',
      },
    ]);
  });

  it('a certificate with an OCSP service and nothing stapled is a warning with the fix', () => {
    const f = findings({ ...good, ocsp: { stapled: false, responder: true } }).find((x) => x.check === 'ocsp')!;
    expect(f.level).toBe('warn');
    expect(f.advice?.nginx).toBe('ssl_stapling on; ssl_stapling_verify on; (and a resolver)');
  });

  it('a stored result without the responder fact reads as before', () => {
    expect(ocsp.read({ ...good, ocsp: { stapled: false } }).status).toBe('fail');
  });
});

describe('session resumption: on the version browsers get', () => {
  it('a TLS 1.3 server that resumes TLS 1.2 only fails, on the command line and on the checklist', () => {
    const only12: ProbeResult = { ...good, resumption: { '1.2': true, '1.3': false, ticketLifetimeS: 7200 } };
    expect(tickets.read(only12).status).toBe('fail');
    expect(findings(only12).find((f) => f.check === 'tickets')).toMatchObject({
      level: 'bad',
      text: 'Session resumption does not work on TLS 1.3: every returning visitor gets a full handshake, and the server signs again each time (no extra round trip on TLS 1.3, but no 0-RTT either).',
    });
  });

  it('on TLS 1.3 resumption is never said to save a round trip or to be quicker; on TLS 1.2 it saves one', () => {
    const texts = (r: ProbeResult) =>
      findings(r)
        .filter((f) => f.check === 'tickets')
        .map((f) => f.text);
    const on13 = [
      ...texts(good),
      ...texts({ ...good, resumption: { '1.2': true, '1.3': false, ticketLifetimeS: null } }),
    ];
    expect(on13).toHaveLength(2);
    for (const t of on13) {
      expect(t).not.toMatch(/quicker|faster|round trip sooner|saves? (a|one) round trip/i);
      expect(t).toMatch(/sign/);
    }
    const tls12: ProbeResult = {
      ...good,
      tls: { versions: { ...good.tls.versions, '1.3': false }, negotiated: { ...good.tls.negotiated, version: '1.2' } },
      resumption: { '1.2': true, '1.3': null, ticketLifetimeS: null },
    };
    expect(texts(tls12)[0]).toMatch(/one round trip instead of two/);
  });

  it('a TLS 1.2-only server that resumes passes; one that does not, fails', () => {
    const tls12: ProbeResult = {
      ...good,
      tls: { versions: { ...good.tls.versions, '1.3': false }, negotiated: { ...good.tls.negotiated, version: '1.2' } },
      resumption: { '1.2': true, '1.3': null, ticketLifetimeS: null },
    };
    expect(tickets.read(tls12)).toEqual({
      status: 'pass',
      detail: 'TLS 1.2 (the newest version this server accepts): they connect in one round trip instead of two',
    });
    const none = { ...tls12, resumption: { '1.2': false, '1.3': null, ticketLifetimeS: null } };
    expect(tickets.read(none).status).toBe('fail');
  });

  it('unmeasured resumption is unknown, never a failure', () => {
    expect(tickets.read({ ...good, resumption: { '1.2': true, '1.3': null, ticketLifetimeS: null } }).status).toBe(
      'unknown',
    );
  });
});
