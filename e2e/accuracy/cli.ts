/**
 * `pnpm lab:accuracy`: how accurately every arm measures the lab's connections. Its options and what it does,
 * for the person running it: USAGE below (`--help`).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { handleArgs } from '../lab/cli-args';
import { startLab, stopOnSignals } from '../lab/lab';
import { profileByName, RTT_PROFILES } from '../lab/profiles';
import { renderReport, type ReportMeta } from './report';
import { classDerivationOf, expectedOf } from './samples';
import type { ServerId } from '../lab/servers';
import { firefoxZeroRttProbe, type ZeroRttProbe } from './firefox-probe';
import { FULL_MATRIX, QUICK_MATRIX } from './matrices';
import { CRYPTO_SERVER_IDS, type CryptoServerId } from '../lab/crypto-servers';
import { ALL_SERVERS, runMatrix, type Browser, type MatrixResult } from './run';

const USAGE = `usage: pnpm lab:accuracy [--quick] [options]
       pnpm lab:accuracy --render FILE [--out FILE]

Checks how accurately tlsrum measures secure connections. It starts the lab (real nginx and Caddy servers
behind proxies that add network delay, in a temporary folder), visits the lab's pages in Chromium and Firefox
the three ways tlsrum measures (the synthetic runner, the browser extension sending to a real collector, and
the site beacon), and compares what each reported for every connection with what the servers and proxies
logged: TLS version, resumption, handshake class and the time of each phase. It writes a report
(e2e/reports/accuracy.md, or accuracy-quick.md with --quick) and prints a summary as JSON on its last line.
The full matrix takes about an hour on a quiet 2-core machine, --quick about four minutes; other work on the
machine stretches the timings it compares.

options:
  --quick                  the reduced matrix pnpm test runs: one network profile (continent), one visit per cell
  --runs N                 visits per cell, 1 to 50 (default: 2, --quick 1)
  --profiles a,b           network profiles, by round-trip time: ${RTT_PROFILES.map((p) => `${p.name} (${p.rttMs} ms)`).join(', ')}
  --servers x,y            lab servers: ${[...ALL_SERVERS].join(', ')} (t12/t13: TLS 1.2/1.3; h3: HTTP/3),
                           and the certificate and key-exchange servers ${CRYPTO_SERVER_IDS.join(', ')}
  --browsers a,b           chromium, firefox (default: both; --quick: Chromium, Firefox for HTTP/3)
  --no-firefox             Chromium only
  --no-extension           without the browser extension's visits
  --no-beacon              without the site beacon's visits
  --no-crypto              without the certificate and key-exchange servers' visits
  --out FILE               where the report goes
  --save-samples FILE      also save every compared connection, for --render
  --render FILE            write the report again from saved samples (no lab, no browser)
  --keep                   keep the lab's folder (server logs, certificates) afterwards
  --help                   this text`;

const args = process.argv.slice(2);
handleArgs(
  args,
  {
    usage: USAGE,
    flags: ['--quick', '--no-firefox', '--no-extension', '--no-beacon', '--no-crypto', '--keep'],
    values: ['--runs', '--profiles', '--servers', '--browsers', '--out', '--save-samples', '--render'],
  },
  'lab:accuracy',
);
const flag = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const quick = args.includes('--quick');
const HERE = dirname(fileURLToPath(import.meta.url));
const out = resolve(flag('--out') ?? join(HERE, '..', 'reports', quick ? 'accuracy-quick.md' : 'accuracy.md'));
const base = quick ? QUICK_MATRIX : FULL_MATRIX;
const profiles = flag('--profiles')?.split(',').map(profileByName) ?? base.profiles;
const serversFlag = flag('--servers')?.split(',') as ServerId[] | undefined;
const isCrypto = (s: ServerId) => CRYPTO_SERVER_IDS.includes(s as CryptoServerId);
// Crypto-lens servers named in --servers run in their own cells (cold, their profiles), the rest in the main matrix.
const servers = serversFlag?.filter((s) => !isCrypto(s)) ?? base.servers;
for (const s of serversFlag ?? servers)
  if (!ALL_SERVERS.includes(s) && !isCrypto(s))
    throw new Error(`unknown server "${s}" (known: ${[...ALL_SERVERS, ...CRYPTO_SERVER_IDS].join(', ')})`);
const runs = Number(flag('--runs') ?? base.runs);
// --no-firefox: Chromium only (no Firefox arms, no Firefox 0-RTT probe).
const browsersFlag = flag('--browsers')?.split(',') as Browser[] | undefined;
const allowed = (b: Browser) =>
  browsersFlag ? browsersFlag.includes(b) : b !== 'firefox' || !args.includes('--no-firefox');
const browsers = browsersFlag ?? base.browsers.filter(allowed);
for (const b of browsers)
  if (b !== 'chromium' && b !== 'firefox') throw new Error(`unknown browser "${b}" (known: chromium, firefox)`);
// HTTP/3 cells have browsers of their own (the quick matrix runs Firefox for h3 only).
const h3 = { browsers: base.h3.browsers.filter(allowed), runs: flag('--runs') ? runs : base.h3.runs };
const extension =
  base.extension && !args.includes('--no-extension')
    ? {
        ...base.extension,
        rebuild: true,
        browsers: base.extension.browsers.filter((b) => browsers.includes(b)),
        servers: base.extension.servers.filter((s) => servers.includes(s)),
      }
    : undefined;
// --no-beacon: without the site-beacon arm; --browsers and --servers narrow it like the rest.
const beacon =
  base.beacon && !args.includes('--no-beacon')
    ? {
        ...base.beacon,
        browsers: base.beacon.browsers.filter(allowed),
        servers: serversFlag ? base.beacon.servers.filter((s) => servers.includes(s)) : base.beacon.servers,
      }
    : undefined;
// --no-crypto: without the crypto-lens servers' cells; --browsers narrows them like the rest.
// --servers and --profiles narrow them too.
const crypto =
  base.crypto && !args.includes('--no-crypto')
    ? {
        ...base.crypto,
        browsers: base.crypto.browsers.filter(allowed),
        servers: serversFlag ? serversFlag.filter(isCrypto) : base.crypto.servers,
        profiles: flag('--profiles') ? profiles : base.crypto.profiles,
      }
    : undefined;
if (!Number.isInteger(runs) || runs < 1 || runs > 50) {
  console.error('--runs must be an integer from 1 to 50');
  process.exit(2);
}

const render = flag('--render');
if (render) {
  const saved = JSON.parse(readFileSync(render, 'utf8')) as {
    result: MatrixResult;
    meta: ReportMeta;
    firefoxZeroRtt?: ZeroRttProbe;
  };
  // The expectation is re-derived from the server's truth, so a re-render applies the current model.
  // Samples saved before records carried how their class was known get it re-derived from their phases.
  saved.result.samples = saved.result.samples.map((s) => ({
    ...s,
    expected: expectedOf(s.truth, s.browser),
    claimed: s.claimed.handshakeClassSource
      ? s.claimed
      : { ...s.claimed, ...classDerivationOf({ ...s.claimed, entryType: s.entryType }) },
  }));
  saved.meta.renderedAt = new Date().toISOString();
  const { markdown, summary } = renderReport(
    saved.result,
    saved.meta,
    saved.firefoxZeroRtt ? { firefoxZeroRtt: saved.firefoxZeroRtt } : {},
  );
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
stopOnSignals(lab, 'accuracy', () => {
  if (!args.includes('--keep')) rmSync(dir, { recursive: true, force: true });
});
let code = 0;
try {
  const result = await runMatrix(lab, {
    profiles,
    modes: base.modes,
    servers,
    runs,
    browsers,
    h3,
    ...(extension ? { extension } : {}),
    ...(beacon ? { beacon } : {}),
    ...(crypto ? { crypto } : {}),
    onProgress: (l) => console.log(`accuracy: ${l}`),
  });
  const firefoxZeroRtt = quick || !browsers.includes('firefox') ? undefined : await firefoxZeroRttProbe(lab);
  if (firefoxZeroRtt)
    console.log(`accuracy: firefox 0-RTT probe: ${firefoxZeroRtt.error ?? `${firefoxZeroRtt.rows.length} entries`}`);
  const meta: ReportMeta = {
    startedAt,
    durationS: (Date.now() - t0) / 1000,
    quick,
    browser: Object.entries(result.browserVersions)
      .map(([b, v]) => `${b} ${v}`)
      .join(', '),
    browsers,
    h3,
    ...(extension ? { extension } : {}),
    ...(beacon ? { beacon } : {}),
    ...(crypto
      ? {
          crypto: {
            servers: crypto.servers,
            profiles: crypto.profiles.map((p) => p.name),
            modes: crypto.modes,
            runs: crypto.runs,
            browsers: crypto.browsers,
          },
        }
      : {}),
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
