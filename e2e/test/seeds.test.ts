/**
 * The seeds report's pure parts: `openssl s_time` output parsing and the rows' verdict rules on
 * hand-made lab figures (the lab runs themselves are `pnpm lab:seeds`).
 */
import { describe, expect, it } from 'vitest';
import { CLAIMS } from '../seeds/claims';
import type { Handshake } from '../seeds/lab-runs';
import { parseSTime } from '../seeds/s-time';
import { rows, type SeedsData } from '../seeds/verdicts';

const hs = (
  server: string,
  profile: string,
  mode: 'cold' | 'warm',
  tls: number[],
  o: Partial<Handshake> = {},
): [string, Handshake[]] => [
  `${server}/${profile}/${mode}`,
  tls.map((t, i) => ({
    server: server as Handshake['server'],
    profile,
    mode,
    prime: mode === 'warm' && i === 0,
    resumed: mode === 'warm' && i > 0,
    zeroRtt: false,
    tls: t,
    connect: t + 40,
    firstByte: t + 80,
    tlsVersion: null,
    ...o,
  })),
];

function data(): SeedsData {
  return {
    handshakes: Object.fromEntries([
      hs('t12-noalpn', 'regional-40', 'cold', [82, 83, 84]),
      hs('t12-noalpn', 'regional-40', 'warm', [83, 42, 42, 43]),
      hs('t13-h2', 'regional-40', 'cold', [42, 43, 44]),
      hs('ecdsa256', 'regional-40', 'cold', [42, 43, 44]),
      hs('rsa2048', 'regional-40', 'cold', [46, 47, 48]),
      hs('rsa4096', 'regional-40', 'cold', [50, 51, 52]),
      hs('chain2', 'regional-40', 'cold', [43, 44, 45]),
      hs('chain3', 'regional-40', 'cold', [44, 45, 46]),
      hs('ecdsa256', 'local', 'cold', [2, 2.5, 3]),
      hs('rsa4096', 'local', 'cold', [7, 7.5, 8]),
    ]),
    pingRecords: [],
    sTime: {
      tls12: { connections: 1000, seconds: 4, msPerHandshake: 4, clientCpuMs: 1 },
      tls13: { connections: 1100, seconds: 4, msPerHandshake: 3.6, clientCpuMs: 0.9 },
      tls12Cipher: 'x',
      tls13Cipher: 'y',
    },
    alert: {
      site: 'b.t13-h2.lab.test',
      clients: 40,
      source: 'page',
      records: { baseline: 120, current: 120 },
      beacons: { baseline: 120, current: 120 },
      resumedShare: { baseline: 0.67, current: 0 },
      thresholds: { alpha: 1e-4, minSamples: 96, minClients: 20, shareDrop: 0.1, p75Rise: 0.2 },
      checks: [{ check: 'resumption_drop', status: 'firing', current: 0, baseline: 0.67, pValue: 1e-20 }],
      probeChecks: [
        { check: 'probe_resumption_lost', status: 'firing', summary: 'session resumption stopped working' },
      ],
      events: [],
    },
    profiles: {
      lan: { name: 'local', rttMs: 0 },
      ping: { name: 'ping-11.6', rttMs: 11.6 },
      regional: { name: 'regional-40', rttMs: 40 },
      far: { name: 'intercontinental', rttMs: 150 },
    },
  };
}

describe('seeds report', () => {
  it('parses openssl s_time', () => {
    const out =
      'Collecting connection statistics for 4 seconds\n1234 connections in 3.70s; 333.51 connections/user sec, bytes read 0\n1234 connections in 4 real seconds, 0 bytes read per connection\n';
    expect(parseSTime(out)).toEqual({ connections: 1234, userSeconds: 3.7 });
    expect(() => parseSTime('connect: Connection refused')).toThrow(/no "N connections in/);
  });

  it('one row per claim; none pending since the crypto-lens servers exist', () => {
    const r = rows(data());
    expect(r.map((x) => x.claim.id)).toEqual(CLAIMS.map((c) => c.id));
    expect(r.filter((x) => x.verdict === 'pending')).toEqual([]);
    expect(r.find((x) => x.claim.id === '002-b')!.verdict).toBe('not testable here');
  });

  it('verdicts follow the stated rules', () => {
    const r = Object.fromEntries(rows(data()).map((x) => [x.claim.id, x]));
    // TLS 1.2 (2 RTT) 83 ms vs TLS 1.3 43 ms at 40 ms: −48 %, more than 10 points from the seed's −35 %.
    expect(r['000-a']).toMatchObject({ verdict: 'differs' });
    expect(r['000-a']!.labFigure).toContain('−48 %');
    // Saving of one round trip at 40 ms: 40 ms, the seed's figure.
    expect(r['002-a']).toMatchObject({ verdict: 'reproduced' });
    expect(r['002-c']).toMatchObject({ verdict: 'reproduced' });
    // s_time: −10 % against the seed's −37 %.
    expect(r['001-a']).toMatchObject({ verdict: 'differs' });
    expect(r['003-b']).toMatchObject({ verdict: 'reproduced' });
    // 003-b needs both alerts: the field check on the beacon records and the probe's change check.
    const probeQuiet = data();
    probeQuiet.alert.probeChecks = [{ check: 'probe_resumption_lost', status: 'ok', summary: 'fine' }];
    expect(rows(probeQuiet).find((x) => x.claim.id === '003-b')).toMatchObject({ verdict: 'differs' });
    // Crypto rows: RSA-4096 51 vs ECDSA 43 ms = 1.19× (seed 2.3×); chain 43 → 45 ms = +1 ms per intermediate;
    // trimming 3 → 2 saves 1 ms (seed 10); ECDSA saves 4 ms against RSA-2048 (seed 5: within 20 %).
    expect(r['000-e']).toMatchObject({ verdict: 'differs', labFigure: expect.stringContaining('1.19×') });
    expect(r['000-e']!.labFigure).toContain('(3.00×)');
    expect(r['000-f']).toMatchObject({
      verdict: 'differs',
      labFigure: expect.stringContaining('+1.0 ms per intermediate'),
    });
    expect(r['002-d']).toMatchObject({ verdict: 'differs', labFigure: expect.stringContaining('−1.0 ms') });
    expect(r['002-e']).toMatchObject({ verdict: 'reproduced', labFigure: expect.stringContaining('−4.0 ms') });
    // Runs that did not happen give no figure, and say so.
    expect(r['000-b']).toMatchObject({ verdict: 'differs', why: expect.stringContaining('no figure') });
  });
});
