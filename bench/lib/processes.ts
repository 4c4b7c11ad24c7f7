/** Child processes for benchmarks: start, wait until they answer, sample CPU and RSS from /proc, stop. */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

export async function freePort(): Promise<number> {
  const srv = createServer().listen(0, '127.0.0.1');
  await once(srv, 'listening');
  const { port } = srv.address() as { port: number };
  srv.close();
  return port;
}

export interface Child {
  proc: ChildProcess;
  url: string;
  output: () => string;
}

/** Runs a TypeScript entry point with node + tsx (the node process itself is the child: /proc reads it). */
export async function startTs(entry: string, env: Record<string, string>, readyPath = '/healthz', nodeArgs: string[] = []): Promise<Child> {
  const port = await freePort();
  const proc = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', entry], {
    cwd: repoRoot,
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout!.on('data', (d) => (out += d));
  proc.stderr!.on('data', (d) => (out += d));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 600; i++) {
    if (proc.exitCode !== null) throw new Error(`${entry} exited: ${out}`);
    try {
      if ((await fetch(url + readyPath)).ok) return { proc, url, output: () => out };
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  proc.kill('SIGKILL');
  throw new Error(`${entry} did not become ready: ${out}`);
}

export async function stop(child: Child, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
  if (child.proc.exitCode !== null) return child.proc.exitCode;
  child.proc.kill(signal);
  const [code] = await once(child.proc, 'exit');
  return code as number | null;
}

/** CPU seconds (user + system) the process has used so far. */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
}

/** Peak resident set size (VmHWM), MiB. */
export function peakRssMiB(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}
