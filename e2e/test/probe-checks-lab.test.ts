/**
 * The probe's three readers agree on every lab server (the probe lab's nginx and every server of the main
 * lab, nginx and Caddy): for each check on the dashboard's checklist or behind a change alert, the command
 * line prints the sentence of the verdict the checklist shows and never the opposite one, and the change
 * alert fires exactly when that verdict is a failure after a probe that saw everything on.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProbeResult } from '@tlsrum/shared';
import { CHECKLIST, CONFIG_CHECKS, sentence } from '@tlsrum/probe/checks';
import { main } from '@tlsrum/probe/cli';
import { formatResult } from '@tlsrum/probe/table';
import { evaluateProbeChecks } from '@tlsrum/collector/probes/changes';
import { startLab, type RunningLab } from '../lab/lab';
import { PROBE_SERVERS, startProbeLab, type ProbeLab } from '../lab/probe-servers';
import { RTT_PROFILES } from '../lab/profiles';
import { SERVERS, hostOf } from '../lab/servers';

const dir = mkdtempSync(join(tmpdir(), 'tlsrum-probe-checks-lab-'));
/** OpenSSL ≥ 3.5 (Node ≥ 24) can offer X25519MLKEM768; older runtimes cannot reach a server accepting only it. */
const PQ_CAPABLE = Number(process.versions.node.split('.')[0]) >= 24;
let probeLab: ProbeLab;
let mainLab: RunningLab;

beforeAll(async () => {
  probeLab = await startProbeLab(join(dir, 'probe'));
  mainLab = await startLab({ dir: join(dir, 'main'), profiles: RTT_PROFILES.slice(0, 1) });
}, 180_000);

afterAll(async () => {
  await probeLab?.stop();
  await mainLab?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Every check the checklist shows or a change alert watches. */
const SHARED = CONFIG_CHECKS.filter((c) => c.checklist || c.lossAlert);
const MARKED = /^ {2}[✓!✗·] (.*)$/;

/** A probe that saw every watched feature on: the history's first entry, so a failure now is a loss. */
const ALL_ON: ProbeResult = {
  url: 'https://all-on.test/',
  host: 'all-on.test',
  phases: { dns: 0, tcp: 1, tls: 1, ttfb: 1 },
  tls: {
    versions: { '1.0': false, '1.1': false, '1.2': true, '1.3': true },
    negotiated: { version: '1.3', cipher: 'TLS_AES_128_GCM_SHA256', group: 'X25519', alpn: 'h2' },
  },
  pq: { supported: true },
  cert: {
    chainLength: 2,
    chainBytes: 2000,
    leaf: { keyType: 'ecdsa', keyBits: 256, signatureAlgorithm: 'ecdsa-with-SHA256', issuer: 'lab', daysToExpiry: 60 },
  },
  ocsp: { stapled: true },
  resumption: { '1.2': true, '1.3': true, ticketLifetimeS: 600 },
  earlyData: { allowed: true },
  h3: { advertised: true, altSvc: 'h3=":443"' },
  errors: [],
};

/** A sentence template as a pattern over whole lines (any detail). */
const pattern = (template: string) =>
  new RegExp(`^${template.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace('\\{detail\\}', '.+')}$`);

function agree(r: ProbeResult) {
  expect(r.errors).toEqual([]);
  const printed = formatResult(r, 1)
    .split('\n')
    .flatMap((l) => MARKED.exec(l)?.[1] ?? []);
  const alerts = evaluateProbeChecks(r.host, [
    { at: 1, result: ALL_ON, identity: { leafSpkiSha256: 'k', chainSha256: 'c' } },
    { at: 2, result: r, identity: { leafSpkiSha256: 'k', chainSha256: 'c' } },
  ]);
  const verdicts: Record<string, string> = {};
  for (const check of SHARED) {
    const reading = check.read(r);
    verdicts[check.id] = reading.status;
    // The dashboard's checklist reads the same check object.
    if (check.checklist) expect(CHECKLIST).toContain(check);
    const said = sentence(check, reading);
    const others = (['pass', 'fail'] as const)
      .filter((v) => v !== reading.status)
      .map((v) => (v === 'pass' ? check.title : check.failureTitle));
    if (said !== null && (reading.status !== 'pass' || check.level.pass !== null))
      expect(printed, check.id).toContain(said);
    for (const other of others)
      expect(
        printed.filter((l) => l !== said && pattern(other).test(l)),
        `${check.id}: the opposite sentence`,
      ).toEqual([]);
    if (check.lossAlert) {
      const alert = alerts.find((a) => a.check === check.lossAlert!.check)!;
      expect(alert.status, `${check.id}: ${check.lossAlert.check}`).toBe(reading.status === 'fail' ? 'firing' : 'ok');
    }
  }
  return verdicts;
}

async function probeJson(args: string[]): Promise<ProbeResult> {
  let out = '';
  const code = await main(
    [...args, '--json', '--runs', '1', '--timeout', '5000'],
    (s) => (out += s),
    () => {},
  );
  expect(code).toBe(0);
  return JSON.parse(out) as ProbeResult;
}

describe('checks: the command line, the checklist and the change alerts agree', () => {
  for (const spec of PROBE_SERVERS) {
    it(`probe lab ${spec.id}`, async () => {
      const resolve = Object.entries(probeLab.resolve).flatMap(([h, a]) => ['--resolve', `${h}=${a}`]);
      const r = await probeJson([probeLab.url(spec.id), '--ca', probeLab.ca.caCert, ...resolve]);
      const v = agree(r);
      // The lab's declared resumption on the version browsers get decides the one verdict.
      const browsers = spec.expect.versions['1.3'] ? '1.3' : '1.2';
      expect(v.tickets).toBe(spec.expect.resumption[browsers] ? 'pass' : 'fail');
    });
  }
  for (const spec of SERVERS.filter((s) => PQ_CAPABLE || !s.crypto?.groups.every((g) => g.includes('MLKEM')))) {
    it(`main lab ${spec.id} (${spec.software})`, async () => {
      const host = hostOf('a', spec.id);
      const r = await probeJson([
        `https://${host}:${mainLab.ports[spec.id]}/`,
        '--ca',
        mainLab.ca.caCert,
        '--resolve',
        `${host}=127.0.0.1`,
      ]);
      const v = agree(r);
      expect(v.tickets).toBe(spec.resumption ? 'pass' : 'fail');
    });
  }
});
