/**
 * `pnpm lab` as a user runs it: start in the foreground, `pnpm lab stop` from another shell, twice in a
 * row (the second time after its supervisor was killed); every process it started is gone afterwards and
 * nothing is left listening.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { isAlive, type LabState } from '../lab/lab';

const e2e = fileURLToPath(new URL('..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'tlsrum-lab-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const listening = (port: number) =>
  new Promise<boolean>((res) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      res(true);
    });
    s.once('error', () => res(false));
  });

function run(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((res) => {
    const p = spawn(process.execPath, ['--import', 'tsx', 'lab/cli.ts', ...args], {
      cwd: e2e,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    p.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    p.once('close', (status) => res({ status, stdout, stderr }));
  });
}

describe('pnpm lab', () => {
  it('starts and stops cleanly twice in a row, refuses a second lab in its folder, and stops the servers of a lab whose supervisor was killed', async () => {
    for (let round = 0; round < 2; round++) {
      const lab = spawn(process.execPath, ['--import', 'tsx', 'lab/cli.ts', 'start', '--dir', dir], {
        cwd: e2e,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      lab.stdout.on('data', (b: Buffer) => (out += b.toString()));
      lab.stderr.on('data', (b: Buffer) => (out += b.toString()));
      const exited = new Promise<number | null>((res) => lab.once('exit', (code) => res(code)));
      await new Promise<void>((res, rej) => {
        const t = setInterval(() => {
          if (out.includes('stops everything')) {
            clearInterval(t);
            res();
          } else if (lab.exitCode !== null) {
            clearInterval(t);
            rej(new Error(`lab exited: ${out}`));
          }
        }, 100);
      });
      const state = JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8')) as LabState;
      expect(state.supervisorPid).toBe(lab.pid);
      for (const port of Object.values(state.ports)) expect(await listening(port)).toBe(true);
      const status = await run(['status', '--dir', dir]);
      expect(status.status).toBe(0);

      if (round === 0) {
        // A second lab in the same folder is refused while the first runs, before it starts anything.
        const second = await run(['start', '--dir', dir]);
        expect(second.stderr).toContain(`lab: already running from ${dir} (pid ${lab.pid})`);
        expect(second.status).toBe(1);
        // Not spawnSync: the lab is our child, and a blocked event loop could not reap it.
        const stop = await run(['stop', '--dir', dir]);
        expect(stop.stdout + stop.stderr).toContain('lab: stopped');
        expect(stop.status).toBe(0);
        expect(await exited).toBe(0);
      } else {
        // The supervisor killed without its clean-up (a closed terminal): its servers keep running, and stop
        // stops them.
        lab.kill('SIGKILL');
        await exited;
        expect(Object.values(state.pids).some(isAlive)).toBe(true);
        const stop = await run(['stop', '--dir', dir]);
        expect(stop.stdout).toContain(`lab: its supervisor (pid ${lab.pid}) is gone; stopping what it left running:`);
        expect(stop.stdout).toContain('lab: stopped');
        expect(stop.status).toBe(0);
      }
      // isAlive: an exited server not yet reaped by its new parent (its supervisor killed) is a zombie, not alive.
      for (const [name, pid] of Object.entries(state.pids))
        expect({ name, alive: isAlive(pid) }).toEqual({ name, alive: false });
      for (const port of [...Object.values(state.ports), ...Object.values(state.socks)])
        expect(await listening(port)).toBe(false);
    }
    const again = await run(['stop', '--dir', dir]);
    expect(again.stdout).toContain('not running');
  });

  it("a command running its own lab stops it when interrupted: the lab's servers do not outlive it", async () => {
    // As pnpm lab:accuracy and pnpm lab:seeds run one: startLab in a temporary folder, stopOnSignals.
    const script = join(dir, 'own-lab.mts');
    const labDir = join(dir, 'own-lab');
    const lab = fileURLToPath(new URL('../lab/lab.ts', import.meta.url));
    const profiles = fileURLToPath(new URL('../lab/profiles.ts', import.meta.url));
    writeFileSync(
      script,
      [
        `import { startLab, stopOnSignals } from ${JSON.stringify(lab)};`,
        `import { profileByName } from ${JSON.stringify(profiles)};`,
        `import { rmSync } from 'node:fs';`,
        `const lab = await startLab({ dir: ${JSON.stringify(labDir)}, quic: false, profiles: [profileByName('local')] });`,
        `stopOnSignals(lab, 'own-lab', () => rmSync(${JSON.stringify(labDir)}, { recursive: true, force: true }));`,
        'console.log(JSON.stringify(lab.pids));',
        'setInterval(() => {}, 1 << 30);',
      ].join('\n'),
    );
    const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: e2e, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (out += b.toString()));
    const exited = new Promise<number | null>((res) => child.once('exit', (code) => res(code)));
    const pids = await new Promise<Record<string, number>>((res, rej) => {
      const t = setInterval(() => {
        const line = out.split('\n').find((l) => l.startsWith('{'));
        if (line) {
          clearInterval(t);
          res(JSON.parse(line) as Record<string, number>);
        } else if (child.exitCode !== null) {
          clearInterval(t);
          rej(new Error(`exited: ${out}`));
        }
      }, 100);
    });
    expect(Object.values(pids).every(isAlive)).toBe(true);
    child.kill('SIGTERM');
    expect(await exited).toBe(143);
    expect(out).toContain('own-lab: SIGTERM: stopping the lab');
    for (const [name, pid] of Object.entries(pids))
      expect({ name, alive: isAlive(pid) }).toEqual({ name, alive: false });
    expect(existsSync(labDir)).toBe(false);
  });
});
