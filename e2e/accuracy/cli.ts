/**
 * pnpm lab:accuracy [--quick] [--runs N] [--profiles a,b] [--servers x,y] [--out FILE] [--keep] [--no-firefox] [--save-samples FILE]
 * pnpm lab:accuracy --render FILE [--out FILE]   re-render a report from saved samples (no lab, no browser)
 *
 * Starts the lab in a temporary folder, runs the matrix in Chromium (synthetic runner + the extension's
 * RUM rules on the same entries), joins every connection to the servers' and the proxy's logs, writes
 * the report (default e2e/reports/accuracy.md; --quick: e2e/reports/accuracy-quick.md) and prints, as
 * its last line, the summary JSON object.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startLab } from '../lab/lab';
import { profileByName } from '../lab/profiles';
import { renderReport, type ReportMeta } from './report';
import type { ServerId } from '../lab/servers';
import { firefoxZeroRttProbe, type ZeroRttProbe } from './firefox-probe';
import { FULL_MATRIX, QUICK_MATRIX } from './matrices';
import { ALL_SERVERS, runMatrix, type MatrixResult } from './run';

const args = process.argv.slice(2);
const flag = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const quick = args.includes('--quick');
const HERE = dirname(fileURLToPath(import.meta.url));
const out = resolve(flag('--out') ?? join(HERE, '..', 'reports', quick ? 'accuracy-quick.md' : 'accuracy.md'));
const base = quick ? QUICK_MATRIX : FULL_MATRIX;
const profiles = flag('--profiles')?.split(',').map(profileByName) ?? base.profiles;
const servers = (flag('--servers')?.split(',') as ServerId[] | undefined) ?? base.servers;
for (const s of servers) if (!ALL_SERVERS.includes(s)) throw new Error(`unknown server "${s}" (known: ${ALL_SERVERS.join(', ')})`);
const runs = Number(flag('--runs') ?? base.runs);
if (!Number.isInteger(runs) || runs < 1 || runs > 50) {
  console.error('--runs must be an integer from 1 to 50');
  process.exit(2);
}

const render = flag('--render');
if (render) {
  const saved = JSON.parse(readFileSync(render, 'utf8')) as { result: MatrixResult; meta: ReportMeta; firefoxZeroRtt?: ZeroRttProbe };
  const { markdown, summary } = renderReport(saved.result, saved.meta, saved.firefoxZeroRtt ? { firefoxZeroRtt: saved.firefoxZeroRtt } : {});
  writeFileSync(out, markdown);
  console.log(`accuracy: report written to ${out}`);
  console.log(JSON.stringify(summary));
  process.exit(0);
}

const dir = mkdtempSync(join(tmpdir(), 'tlsrum-accuracy-'));
const startedAt = new Date().toISOString();
const t0 = Date.now();
const loadBefore = loadavg();
const lab = await startLab({ dir });
let code = 0;
try {
  const result = await runMatrix(lab, {
    profiles,
    modes: base.modes,
    servers,
    runs,
    onProgress: (l) => console.log(`accuracy: ${l}`),
  });
  const firefoxZeroRtt = quick || args.includes('--no-firefox') ? undefined : await firefoxZeroRttProbe(lab);
  if (firefoxZeroRtt) console.log(`accuracy: firefox 0-RTT probe: ${firefoxZeroRtt.error ?? `${firefoxZeroRtt.rows.length} entries`}`);
  const meta: ReportMeta = {
    startedAt,
    durationS: (Date.now() - t0) / 1000,
    quick,
    browser: `Chromium ${result.browserVersion}`,
    profiles: profiles.map((p) => ({ name: p.name, rttMs: p.rttMs })),
    modes: base.modes,
    servers,
    runs,
    loadBefore,
    loadAfter: loadavg(),
    cores: cpus().length,
  };
  const { markdown, summary } = renderReport(result, meta, firefoxZeroRtt ? { firefoxZeroRtt } : {});
  const save = flag('--save-samples');
  if (save) writeFileSync(save, JSON.stringify({ result, meta, firefoxZeroRtt }));
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, markdown);
  console.log(`accuracy: report written to ${out}`);
  if (result.counts.failedVisits) code = 1;
  console.log(JSON.stringify(summary));
} finally {
  await lab.stop();
  if (!args.includes('--keep')) rmSync(dir, { recursive: true, force: true });
  else console.error(`accuracy: lab folder kept at ${dir}`);
}
process.exit(code);
