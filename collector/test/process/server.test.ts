/**
 * The collector as operators run it: a real process, real HTTP, SIGTERM, restart.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { makeBatch, makeRecords, removeDir, freshStoreDir } from '../support/helpers';
import { freePort, spawnTs } from '../support/node-process';
import { startCollector, stopCollector } from '../support/process';

const collectorDir = fileURLToPath(new URL('../..', import.meta.url));
const dirs: string[] = [];
afterAll(() => dirs.forEach(removeDir));

const startServer = (env: Record<string, string>) => startCollector({ MIN_CLIENTS_PER_CELL: '1', ...env });

describe('collector process', () => {
  it('serves, stores a gzip batch of 500, flushes on SIGTERM, and keeps the data across a restart', async () => {
    const dataDir = freshStoreDir();
    dirs.push(dataDir);
    // Durability, counted in the summary: 50 tokens from one address, 10 records each, all counted.
    const first = await startServer({ DATA_DIR: dataDir, TOKENS_PER_ADDRESS: '0', CLIENT_RECORDS_PER_CELL_DAY: '0' });
    const batch = makeBatch(makeRecords(500, {}, 50));
    const res = await fetch(`${first.url}/v1/handshakes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: gzipSync(JSON.stringify(batch)),
    });
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ accepted: 500 });
    // Visible in the summary once flushed (≤ 1 s by default); poll rather than sleep.
    let records = 0;
    for (let i = 0; i < 50 && records < 500; i++) {
      records = ((await (await fetch(`${first.url}/v1/summary`)).json()) as { records: number }).records;
      if (records < 500) await new Promise((r) => setTimeout(r, 100));
    }
    expect(records).toBe(500);
    expect(await stopCollector(first)).toBe(0);

    const second = await startServer({ DATA_DIR: dataDir, TOKENS_PER_ADDRESS: '0', CLIENT_RECORDS_PER_CELL_DAY: '0' });
    const summary = (await (await fetch(`${second.url}/v1/summary`)).json()) as { records: number };
    expect(summary.records).toBe(500);
    expect((await fetch(`${second.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${second.url}/readyz`)).status).toBe(200);
    expect(await stopCollector(second)).toBe(0);
  });

  it('stops with a clear message on a bad configuration', async () => {
    const proc = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
      cwd: collectorDir,
      env: { ...process.env, PORT: 'x' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    proc.stderr!.on('data', (d) => (err += d));
    const [code] = await once(proc, 'exit');
    expect(code).toBe(2);
    expect(err).toContain('configuration error: PORT must be a whole number');
  });

  it.each([
    ['start', 'src/server.ts'],
    ['demo', 'src/demo/main.ts'],
  ])(
    'pnpm %s --help says what it does and where its settings are, and starts nothing; an argument is refused',
    (command, file) => {
      // A data folder that must stay absent: neither the help nor the refusal opens a store (the demo would
      // generate its month of data there).
      const parent = mkdtempSync(join(tmpdir(), 'tlsrum-help-'));
      dirs.push(parent);
      const dataDir = join(parent, 'data');
      const run = (...args: string[]) =>
        spawnSync(process.execPath, ['--import', 'tsx', file, ...args], {
          cwd: collectorDir,
          env: { ...process.env, DATA_DIR: dataDir, PORT: '0' },
          encoding: 'utf8',
          timeout: 60_000,
        });
      const help = run('--help');
      expect(help.status).toBe(0);
      expect(help.stdout).toMatch(new RegExp(`^usage: pnpm ${command}\\n`));
      expect(help.stdout).toContain('`pnpm collector config`');
      const refused = run('--port', '9000');
      expect(refused.status).toBe(2);
      expect(refused.stderr).toContain(`pnpm ${command} takes no arguments (got "--port" "9000")`);
      expect(existsSync(dataDir)).toBe(false);
    },
  );

  it('without a reachable store: 503 + Retry-After on ingest and readiness, alive on healthz', async () => {
    const deadPort = await freePort();
    const s = await startServerNoWait({ CLICKHOUSE_URL: `http://127.0.0.1:${deadPort}` });
    try {
      const res = await fetch(`${s.url}/v1/handshakes`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(makeBatch()),
      });
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
      expect((await fetch(`${s.url}/readyz`)).status).toBe(503);
      expect((await fetch(`${s.url}/healthz`)).status).toBe(200);
    } finally {
      expect(await stopCollector(s)).toBe(0);
    }
  });
});

/** Like startServer, but the store never becomes ready, so "listening on" is never printed: wait for healthz. */
function startServerNoWait(env: Record<string, string>) {
  return spawnTs('src/server.ts', {
    cwd: collectorDir,
    env: { LOG_LEVEL: 'silent', MAX_EVENT_LOOP_DELAY_MS: '0', PROBE_INTERVAL_MS: '0', ...env },
    ready: { serves: '/healthz' },
  });
}
