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
import { main } from '@tlsrum/collector/probe/cli';
import { startLab, type RunningLab } from '../lab/lab';
import { RTT_PROFILES } from '../lab/profiles';
import { SERVERS, hostOf } from '../lab/servers';

const dir = mkdtempSync(join(tmpdir(), 'tlsrum-probe-main-lab-'));
let lab: RunningLab;

beforeAll(async () => {
  lab = await startLab({ dir, profiles: RTT_PROFILES.slice(0, 1) });
}, 120_000);

afterAll(async () => {
  await lab?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('probe: every main lab server as declared', () => {
  for (const spec of SERVERS) {
    it(`${spec.id}: ${spec.description}`, async () => {
      const host = hostOf('a', spec.id);
      let out = '';
      const code = await main(
        [`https://${host}:${lab.ports[spec.id]}/`, '--json', '--runs', '1', '--ca', lab.ca.caCert, '--resolve', `${host}=127.0.0.1`],
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
      if (spec.tlsVersion === '1.3') expect(r.earlyData.allowed).toBe(spec.transport === 'tcp' ? spec.earlyData : false);
      else expect(r.earlyData.allowed).toBeNull();
      expect(r.h3.advertised).toBe(spec.transport === 'quic');
      expect(r.cert.leaf).toMatchObject({ keyType: 'ecdsa', keyBits: 256, issuer: 'tlsrum lab CA' });
    });
  }
});
