/** The ingest-probing bench. What it measures, how to run it and its settings: its entry in lib/catalogue.ts (shown in BENCHMARKS.md). */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeLabCa } from '@tlsrum/e2e/lab/ca';
import { measureLoad } from './lib/measure-load';
import { startTs, stop } from './lib/processes';
import { machine, median, printResult, printTable, round } from './lib/report';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const WARMUP = Number(process.env.BENCH_WARMUP_SECONDS ?? 5);
const CONNECTIONS = 50;
const SITES = Array.from({ length: 8 }, (_, i) => `site${i + 1}.bench.test`);
const ADMIN = 'bench-admin-token-0123456789';

async function runOnce(probing: boolean, tls: { port: number; ca: string }) {
  const dataDir = mkdtempSync(join(tmpdir(), 'tlsrum-bench-probing-'));
  try {
    const env: Record<string, string> = {
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_MINUTE: '0',
      ADMIN_TOKEN: ADMIN,
    };
    if (probing) {
      Object.assign(env, {
        PROBE_INTERVAL_MS: '2000',
        PROBE_JITTER: '0',
        PROBE_CA_FILE: tls.ca,
        PROBE_CONNECT_TO: SITES.map((h) => `${h}:443:127.0.0.1:${tls.port}`).join(','),
      });
    } else env.PROBE_INTERVAL_MS = '0';
    const profile = process.env.BENCH_PROFILE_DIR
      ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}/${probing ? 'on' : 'off'}`]
      : [];
    const collector = await startTs('collector/src/server.ts', env, '/readyz', profile);
    for (const hostname of SITES) {
      const res = await fetch(new URL('/v1/sites', collector.url), {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ hostname }),
      });
      if (res.status !== 201) throw new Error(`registering ${hostname}: ${res.status} ${await res.text()}`);
    }
    const m = await measureLoad(collector, { connections: CONNECTIONS, warmupSeconds: WARMUP, seconds: SECONDS });
    const metrics = await (await fetch(new URL('/metrics', collector.url))).text();
    const count = (outcome: string) =>
      Number(new RegExp(`^tlsrum_probes_total\\{outcome="${outcome}"\\} (\\d+)`, 'm').exec(metrics)?.[1] ?? 0);
    const probes = { ok: count('ok'), failed: count('failed') };
    await stop(collector);
    const recordsPerSec = m.run.recordsPerSec;
    return {
      probing,
      recordsPerSec,
      p99: m.run.p99,
      usPerRecord: (m.cpuCores * 1e6) / recordsPerSec,
      non2xx: m.run.non2xx,
      probes,
    };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main() {
  console.log(
    `ingest with and without probing: ${CONNECTIONS} connections, ${WARMUP} s warm-up + ${SECONDS} s per run, off/on × 2; ${machine()}`,
  );
  const caDir = mkdtempSync(join(tmpdir(), 'tlsrum-bench-probing-ca-'));
  const ca = makeLabCa(caDir, SITES);
  const server = createServer({ cert: readFileSync(ca.leafCert), key: readFileSync(ca.leafKey) }, (_req, res) => {
    res.setHeader('alt-svc', 'h3=":443"; ma=86400');
    res.end('ok');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const tls = { port: (server.address() as { port: number }).port, ca: ca.caCert };
  try {
    const runs: Awaited<ReturnType<typeof runOnce>>[] = [];
    for (const probing of [false, true, false, true]) runs.push(await runOnce(probing, tls));
    printTable(
      'runs (in order)',
      runs.map((r) => ({
        probing: r.probing ? 'on (8 sites / 2 s)' : 'off',
        'records/s': Math.round(r.recordsPerSec),
        'p99 ms': r.p99,
        'µs CPU/record': round(r.usPerRecord, 1),
        'non-2xx': r.non2xx,
        'probes ok / failed': r.probing ? `${r.probes.ok} / ${r.probes.failed}` : '—',
      })),
    );
    const of = (on: boolean, f: (r: (typeof runs)[number]) => number) =>
      median(runs.filter((r) => r.probing === on).map(f));
    const ratio = of(true, (r) => r.recordsPerSec) / of(false, (r) => r.recordsPerSec);
    console.log(
      `\nrecords/s on/off: ${round(ratio, 3)}; p99 ${of(false, (r) => r.p99)} → ${of(true, (r) => r.p99)} ms; CPU/record ${round(
        of(false, (r) => r.usPerRecord),
        1,
      )} → ${round(
        of(true, (r) => r.usPerRecord),
        1,
      )} µs (the probing run's CPU includes the probes themselves)`,
    );
    printResult({
      bench: 'ingest-probing',
      ratio: round(ratio, 3),
      recordsPerSecOff: Math.round(of(false, (r) => r.recordsPerSec)),
      recordsPerSecOn: Math.round(of(true, (r) => r.recordsPerSec)),
      p99MsOff: of(false, (r) => r.p99),
      p99MsOn: of(true, (r) => r.p99),
      usPerRecordOff: round(
        of(false, (r) => r.usPerRecord),
        1,
      ),
      usPerRecordOn: round(
        of(true, (r) => r.usPerRecord),
        1,
      ),
      probesOn: runs.filter((r) => r.probing).map((r) => r.probes),
      seconds: SECONDS,
    });
  } finally {
    server.close();
    rmSync(caDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
