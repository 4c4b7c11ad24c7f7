/**
 * `pnpm probe` against every server of the main lab (real nginx and Caddy): what it reports must match the
 * lab's own declaration of each server (e2e/lab/servers.ts) — version, ALPN, resumption, 0-RTT, h3.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Value } from 'typebox/value';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProbeResult } from '@tlsrum/shared';
import { main } from '@tlsrum/probe/cli';
import { startLab, type RunningLab } from '../lab/lab';
import { RTT_PROFILES } from '../lab/profiles';
import { cryptoOf } from '../lab/crypto-servers';
import { SERVERS, hostOf } from '../lab/servers';

const dir = mkdtempSync(join(tmpdir(), 'tlsrum-probe-main-lab-'));
/** OpenSSL ≥ 3.5 (Node ≥ 24) can offer X25519MLKEM768; older runtimes cannot reach a server accepting only it. */
const PQ_CAPABLE = Number(process.versions.node.split('.')[0]) >= 24;
let lab: RunningLab;

beforeAll(async () => {
  lab = await startLab({ dir, profiles: RTT_PROFILES.slice(0, 1) });
}, 120_000);

afterAll(async () => {
  await lab?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('probe: every main lab server as declared', () => {
  // On Node < 24, `pq-hybrid` (X25519MLKEM768 only) is checked by crypto-lab.test.ts with a Node 24 client.
  for (const spec of SERVERS.filter((s) => PQ_CAPABLE || !s.crypto?.groups.every((g) => g.includes('MLKEM')))) {
    it(`${spec.id}: ${spec.description}`, async () => {
      const host = hostOf('a', spec.id);
      let out = '';
      const code = await main(
        [
          `https://${host}:${lab.ports[spec.id]}/`,
          '--json',
          '--runs',
          '1',
          '--ca',
          lab.ca.caCert,
          '--resolve',
          `${host}=127.0.0.1`,
        ],
        (s) => (out += s),
        () => {},
      );
      const r = JSON.parse(out) as ProbeResult;
      expect(Value.Check(ProbeResult, r)).toBe(true);
      expect(r.errors).toEqual([]);
      expect(code).toBe(0);
      expect(r.tls.negotiated.version).toBe(spec.tlsVersion);
      expect(r.tls.versions['1.3']).toBe(spec.tlsVersion === '1.3');
      expect(r.tls.negotiated.alpn).toBe(spec.alpn);
      expect(r.resumption[spec.tlsVersion]).toBe(spec.resumption);
      // The probe reads 0-RTT from TLS-over-TCP tickets. Caddy's early data is QUIC's (Go's TLS never allows it
      // over TCP), which the probe cannot reach: Node has no QUIC client (docs/probe.md, blind spots).
      if (spec.tlsVersion === '1.3')
        expect(r.earlyData.allowed).toBe(spec.transport === 'tcp' ? spec.earlyData : false);
      else expect(r.earlyData.allowed).toBeNull();
      expect(r.h3.advertised).toBe(spec.transport === 'quic');
      const c = cryptoOf(spec);
      const issuer = c.chainDepth === 3 ? 'tlsrum lab int2' : c.chainDepth === 2 ? 'tlsrum lab int1' : 'tlsrum lab CA';
      expect(r.cert.leaf).toMatchObject({ keyType: c.keyType, keyBits: c.keyBits, issuer });
      expect(r.cert.chainLength).toBe(c.chainDepth);
      expect(r.cert.chainBytes).toBe(lab.crypto.chainBytes[spec.id]);
      if (spec.transport === 'tcp') expect(r.ocsp.stapled).toBe(c.ocspStapled);
      // The server's own group when it accepts one only; else OpenSSL 3.0's pick among X25519 and P-256.
      if (spec.crypto?.groups.length === 1) expect(r.tls.negotiated.group).toBe(spec.crypto.groups[0]);
      if (spec.crypto?.arm === 'group')
        expect(r.pq.supported).toBe(PQ_CAPABLE ? spec.crypto.groups.includes('X25519MLKEM768') : null);
    });
  }
});
