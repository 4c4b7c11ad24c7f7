/**
 * `pnpm synth` as a user runs it: a real process, a real Chromium, a real nginx and a real collector
 * process (embedded store in a temporary folder).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Value } from 'typebox/value';
import { HandshakeRecord } from '@tlsrum/shared';
import { main } from '@tlsrum/synth/cli';
import { seedStore } from '@tlsrum/collector/test/store-template';
import { CSV_COLUMNS } from '@tlsrum/synth/output';
import { startNginx } from './nginx';
import { useTestServer } from './setup';
import { freePort } from '../../lab/ports';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const TSX = join(ROOT, 'e2e/node_modules/.bin/tsx');
const CLI = join(ROOT, 'synth/src/cli.ts');

const lab = useTestServer(startNginx);
let out: string;

beforeAll(() => {
  out = mkdtempSync(join(tmpdir(), 'tlsrum-synth-out-'));
});
afterAll(() => {
  if (out) rmSync(out, { recursive: true, force: true });
});

function run(
  cmd: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((res, rej) => {
    const child = spawn(cmd, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', rej);
    child.on('exit', (code) => res({ code, stdout, stderr }));
  });
}

const common = () => ['--resolve', '*.synth.test=127.0.0.1', '--block-other-hosts', '--ca', lab.certs.caPem];
/** As a process (the real entry point, once: starting tsx costs seconds on a busy machine). */
const synthProcess = (...args: string[]) => run(TSX, [CLI, ...common(), ...args]);
/** In this process: the same `main`, its exit code and what it printed on stderr. */
async function synth(...args: string[]): Promise<{ code: number; stderr: string }> {
  const lines: string[] = [];
  const spy = vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void lines.push(a.join(' ')));
  try {
    return { code: await main([...common(), ...args]), stderr: lines.join('\n') };
  } finally {
    spy.mockRestore();
  }
}

/** A collector process on a free port with its own data folder; stopped by pid. */
async function startCollector() {
  const dataDir = seedStore(mkdtempSync(join(tmpdir(), 'tlsrum-synth-collector-')));
  const child = spawn(TSX, [join(ROOT, 'collector/src/server.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: '0',
      DATA_DIR: dataDir,
      MIN_CLIENTS_PER_CELL: '1',
      CLIENT_RECORDS_PER_CELL_DAY: '0',
      LOG_LEVEL: 'warn',
      PROBE_INTERVAL_MS: '0',
      // Every answer fresh: records are stored and asked about again at once.
      ANSWER_CACHE_SECONDS: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  const url = await new Promise<string>((res, rej) => {
    const t = setTimeout(() => rej(new Error(`collector did not start: ${text}`)), 30_000);
    const onData = (d: Buffer) => {
      text += d.toString();
      const m = /listening on (http:\/\/[^\s]+)/.exec(text);
      if (m) {
        clearTimeout(t);
        res(m[1]!);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => rej(new Error(`collector exited ${code}: ${text}`)));
  });
  return {
    url,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

describe('pnpm synth (CLI)', () => {
  it('writes NDJSON and sends the same records to a real collector, which stores them', async () => {
    const collector = await startCollector();
    try {
      const file = join(out, 'r.ndjson');
      const r = await synthProcess(
        `https://a.synth.test:${lab.server.t13}/page?q=private`,
        '--mode',
        'warm',
        '--runs',
        '2',
        '--out',
        file,
        '--collector',
        collector.url,
      );
      expect(r.stderr).toMatch(/3 visits \(0 failed\)/);
      expect(r.code, r.stderr).toBe(0);
      const records = readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as HandshakeRecord);
      // Per visit: the page's connection (a.) and the TAO resource's (c.); b. has no TAO.
      expect(records).toHaveLength(6);
      for (const rec of records) expect(Value.Check(HandshakeRecord, rec)).toBe(true);
      expect(records.filter((x) => x.resumed === true)).toHaveLength(4);
      expect(readFileSync(file, 'utf8')).not.toMatch(/private|\/page/);
      expect(r.stderr).toMatch(/collector accepted 6 records in 1 batches/);
      // The collector stored them (its write path flushes within a second or two).
      let stored = 0;
      for (let i = 0; i < 50 && stored < 6; i++) {
        const s = (await (await fetch(`${collector.url}/v1/summary`)).json()) as { records: number };
        stored = s.records;
        if (stored < 6) await new Promise((res) => setTimeout(res, 200));
      }
      expect(stored).toBe(6);
    } finally {
      await collector.stop();
    }
  });

  it('writes CSV with a header row and one row per record', async () => {
    const file = join(out, 'r.csv');
    const r = await synth(`https://a.synth.test:${lab.server.t12}/page`, '--runs', '1', '--out', file);
    expect(r.code, r.stderr).toBe(0);
    const [header, ...rows] = readFileSync(file, 'utf8').trim().split('\n');
    expect(header).toBe(CSV_COLUMNS.join(','));
    expect(rows).toHaveLength(2);
    const col = (row: string, name: string) =>
      row.split(',')[CSV_COLUMNS.indexOf(name as (typeof CSV_COLUMNS)[number])];
    const nav = rows.find((row) => col(row, 'entryType') === 'navigation')!;
    expect(col(nav, 'tlsVersion')).toBe('1.2');
    expect(col(nav, 'cipher')).toBe('TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256');
    expect(col(nav, 'resumed')).toBe('false');
    expect(col(nav, 'source')).toBe('synthetic');
  });

  it('exits 1 and names the reason when a URL is unreachable', async () => {
    const closed = await freePort();
    const file = join(out, 'u.ndjson');
    const r = await synth(`https://a.synth.test:${closed}/`, '--out', file, '--timeout', '10000');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /visit failed: a\.synth\.test \(run 1\): unreachable: ERR_CONNECTION_REFUSED \(nothing listens on that port\)/,
    );
    expect(readFileSync(file, 'utf8')).toBe('');
  });

  it('without --out or --collector: prints the per-URL summary and says the records were not kept', async () => {
    const printed: string[] = [];
    const log = vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void printed.push(a.join(' ')));
    let r;
    try {
      r = await synth(`https://a.synth.test:${lab.server.t13}/page`, '--mode', 'warm', '--runs', '2');
    } finally {
      log.mockRestore();
    }
    expect(r.code, r.stderr).toBe(0);
    const text = printed.join('\n');
    expect(text).toContain(`https://a.synth.test:${lab.server.t13}/page`);
    expect(text).toMatch(/visits {15}2 \(0 failed\), after 1 priming visit not counted here/);
    // Per counted visit: the page's and the TAO resource's connections, all resumed (nginx tickets on).
    expect(text).toMatch(/new connections {6}4/);
    expect(text).toMatch(/TLS version {10}TLS 1\.3 100 %/);
    expect(text).toMatch(/resumed {14}100 % of 4 connections/);
    expect(text).toMatch(/TLS handshake {8}p50 \d+\.\d ms, p75 \d+\.\d ms/);
    // The priming visit's records are kept or sent with the others: 6 in all.
    expect(r.stderr).toMatch(/the 6 records were not kept: add --out FILE\.ndjson/);
  });

  it('exits 3 with an install hint when the browser is missing', async () => {
    const r = await synth(
      `https://a.synth.test:${lab.server.t13}/`,
      '--out',
      join(out, 'm.ndjson'),
      '--executable',
      '/nonexistent/chromium',
    );
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/chromium not found at \/nonexistent\/chromium: install it/);
  });

  it('exits 2 on bad usage', async () => {
    expect((await synth('http://a.synth.test/', '--out', join(out, 'x.ndjson'))).stderr).toMatch(
      /only https:\/\/ URLs/,
    );
    expect((await synth(`https://a.synth.test:${lab.server.t13}/`, '--runs', 'x')).code).toBe(2);
    expect((await synth(`https://a.synth.test:${lab.server.t13}/`, '--out', join(out, 'x.txt'))).stderr).toMatch(
      /--out must end in/,
    );
  });
});
