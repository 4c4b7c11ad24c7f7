/**
 * A TypeScript entry point run as its own Node process (through tsx) on a free loopback port, for the
 * process tests and the benchmarks: start it, wait until it is ready, read its output, stop it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';

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

/** When the process counts as started: it printed this text, or this path answers 2xx. */
export type Readiness = { logged: string } | { serves: string };

export interface SpawnOptions {
  cwd: string;
  env: Record<string, string>;
  ready: Readiness;
  nodeArgs?: string[];
  timeoutMs?: number;
}

/** The node process itself is the child (no shell, no wrapper), so signals and /proc reach it. */
export async function spawnTs(entry: string, opts: SpawnOptions): Promise<Child> {
  const port = await freePort();
  const proc = spawn(process.execPath, [...(opts.nodeArgs ?? []), '--import', 'tsx', entry], {
    cwd: opts.cwd,
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout!.on('data', (d) => (out += d));
  proc.stderr!.on('data', (d) => (out += d));
  const child = { proc, url: `http://127.0.0.1:${port}`, output: () => out };
  const until = Date.now() + (opts.timeoutMs ?? 30_000);
  while (Date.now() < until) {
    if (proc.exitCode !== null) throw new Error(`${entry} exited: ${out}`);
    if (await isReady(child, opts.ready)) return child;
    await new Promise((r) => setTimeout(r, 100));
  }
  proc.kill('SIGKILL');
  throw new Error(`${entry} did not become ready: ${out}`);
}

async function isReady(child: Child, ready: Readiness): Promise<boolean> {
  if ('logged' in ready) return child.output().includes(ready.logged);
  try {
    return (await fetch(child.url + ready.serves)).ok;
  } catch {
    return false; // not listening yet
  }
}

/** Stops the process (SIGTERM: a graceful shutdown) and resolves with its exit code. */
export async function stopChild(child: Child, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
  if (child.proc.exitCode !== null || child.proc.signalCode !== null) return child.proc.exitCode;
  const exited = once(child.proc, 'exit');
  child.proc.kill(signal);
  const [code] = await exited;
  return code as number | null;
}
