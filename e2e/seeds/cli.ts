/**
 * `pnpm lab:seeds`: the seeds' headline claims against the lab. Its options and what it does, for the person
 * running it: USAGE below (`--help`).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HandshakeRecord } from '@tlsrum/shared';
import { handleArgs } from '../lab/cli-args';
import { startLab, stopOnSignals } from '../lab/lab';
import type { RttProfile } from '../lab/profiles';
import type { ServerId } from '../lab/servers';
import { resumptionAlertRun } from './alert-run';
import { runVisits, SEED_PROFILES, type Handshake } from './lab-runs';
import { renderSeeds } from './report';
import { sTime } from './s-time';
import { rows, type SeedsData } from './verdicts';

const USAGE = `usage: pnpm lab:seeds [--out FILE] [--save-data FILE] [--keep]

Checks the headline claims of the papers and posts tlsrum grew from (shared/seeds/) against the lab: it starts
the lab (real nginx and Caddy servers behind proxies that add network delay, in a temporary folder), makes the
measurements each claim needs (visits in Chromium, \`openssl s_time\`, the collector's alerts and what-if on
the lab's records), and writes e2e/reports/seeds.md: per claim, the seed's figure, the lab's figure under the
closest conditions, and a verdict (reproduced, differs, not testable here). The last line printed is a
summary as JSON. About 10 to 15 minutes on a quiet 2-core machine; other work on the machine stretches the
timings, and the report says so.

options:
  --out FILE         where the report goes (default e2e/reports/seeds.md)
  --save-data FILE   also save the measurements as JSON
  --keep             keep the lab's folder (server logs, certificates) afterwards
  --help             this text`;

const args = process.argv.slice(2);
handleArgs(args, { usage: USAGE, flags: ['--keep'], values: ['--out', '--save-data'] }, 'lab:seeds');
const flag = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const HERE = dirname(fileURLToPath(import.meta.url));
const out = resolve(flag('--out') ?? join(HERE, '..', 'reports', 'seeds.md'));
const log = (l: string) => console.log(`seeds: ${l}`);

/** Visits per cell: enough for a median on a shared machine, few enough for the 20-minute budget. */
const RUNS = 5;
const { lan, ping, regional, far } = SEED_PROFILES;
const PLAN: { server: ServerId; profile: RttProfile; modes: ('cold' | 'warm')[]; runs?: number }[] = [
  { server: 't12-noalpn', profile: regional, modes: ['cold', 'warm'] },
  { server: 't12-h2', profile: regional, modes: ['cold'] },
  { server: 't13-h2', profile: regional, modes: ['cold', 'warm'] },
  { server: 'h3', profile: regional, modes: ['cold', 'warm'] },
  { server: 't13-h2', profile: far, modes: ['cold'] },
  { server: 'h3', profile: far, modes: ['cold'] },
  { server: 't12-noalpn', profile: ping, modes: ['cold'], runs: 8 },
  { server: 't13-h2', profile: ping, modes: ['cold'], runs: 8 },
  { server: 't12-h2', profile: lan, modes: ['cold', 'warm'], runs: 6 },
  { server: 't13-h2', profile: lan, modes: ['cold', 'warm'], runs: 6 },
  // Crypto-lens servers (e2e/lab/crypto-servers.ts): key type and chain depth at the seeds' ≈ 40 ms, and
  // the key's CPU cost alone at 0 ms. Full handshakes only (cold).
  ...(['ecdsa256', 'rsa2048', 'rsa4096', 'chain2', 'chain3'] as const).map((server) => ({
    server,
    profile: regional,
    modes: ['cold' as const],
  })),
  ...(['ecdsa256', 'rsa4096'] as const).map((server) => ({ server, profile: lan, modes: ['cold' as const], runs: 6 })),
];
const TLS12_CIPHER = 'ECDHE-ECDSA-AES256-GCM-SHA384';
const TLS13_CIPHER = 'TLS_CHACHA20_POLY1305_SHA256';

const startedAt = new Date().toISOString();
const t0 = Date.now();
const loadBefore = loadavg();
const dir = mkdtempSync(join(tmpdir(), 'tlsrum-seeds-'));
const lab = await startLab({ dir, profiles: Object.values(SEED_PROFILES) });
stopOnSignals(lab, 'seeds', () => {
  if (!args.includes('--keep')) rmSync(dir, { recursive: true, force: true });
});
let code = 0;
try {
  const handshakes: Record<string, Handshake[]> = {};
  const pingRecords: HandshakeRecord[] = [];
  let browser = '';
  for (const p of PLAN) {
    for (const mode of p.modes) {
      const key = `${p.server}/${p.profile.name}/${mode}`;
      const r = await runVisits(lab, { server: p.server, profile: p.profile, mode, runs: p.runs ?? RUNS });
      handshakes[key] = r.handshakes;
      browser ||= r.browserVersion;
      if (p.profile === ping)
        pingRecords.push(...r.visits.flatMap((v) => v.records.filter((x) => x.entryType === 'navigation')));
      log(`${key}: ${r.visits.length} visits, ${r.handshakes.length} page handshakes`);
    }
  }
  const sTimeData = {
    tls12: await sTime(lab.ports['t12-h2'], '1.2', TLS12_CIPHER),
    tls13: await sTime(lab.ports['t13-h2'], '1.3', TLS13_CIPHER),
    tls12Cipher: TLS12_CIPHER,
    tls13Cipher: TLS13_CIPHER,
  };
  log(
    `s_time: TLS 1.2 ${sTimeData.tls12.msPerHandshake.toFixed(2)} ms, TLS 1.3 ${sTimeData.tls13.msPerHandshake.toFixed(2)} ms per handshake`,
  );
  const alert = await resumptionAlertRun(lab, ping, { clients: 40, views: 3, parallel: 4, onProgress: log });
  const data: SeedsData = { handshakes, pingRecords, sTime: sTimeData, alert, profiles: SEED_PROFILES };
  const table = rows(data);
  const save = flag('--save-data');
  if (save) writeFileSync(save, JSON.stringify(data));
  const markdown = renderSeeds(table, data, {
    startedAt,
    durationS: (Date.now() - t0) / 1000,
    browser: `chromium ${browser}`,
    cores: cpus().length,
    loadBefore,
    loadAfter: loadavg(),
  });
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, markdown);
  log(`report written to ${out}`);
  const verdicts = table.reduce<Record<string, number>>((m, r) => ((m[r.verdict] = (m[r.verdict] ?? 0) + 1), m), {});
  console.log(JSON.stringify({ claims: table.length, verdicts, durationS: Math.round((Date.now() - t0) / 1000) }));
} catch (e) {
  console.error(`seeds: ${e instanceof Error ? e.stack : String(e)}`);
  code = 1;
} finally {
  await lab.stop();
  if (!args.includes('--keep')) rmSync(dir, { recursive: true, force: true });
  else console.error(`seeds: lab folder kept at ${dir}`);
}
process.exit(code);
