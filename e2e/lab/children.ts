/**
 * The server processes the lab and the tests start (nginx, Caddy): keep the tail of what they print,
 * wait until they listen, stop them by their own process handle and wait until they have exited.
 */
import type { ChildProcess } from 'node:child_process';
import { connect } from 'node:net';

/** The last `max` characters the child wrote to stderr (for the error when it fails to start). */
export function stderrTail(child: ChildProcess, max = 4000): () => string {
  let text = '';
  child.stderr?.on('data', (b: Buffer) => (text = (text + b.toString()).slice(-max)));
  return () => text;
}

/** True once the child has exited, false if it is still running after `ms`. */
export function waitExit(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((res) => {
    const t = setTimeout(() => res(false), ms);
    child.once('exit', () => {
      clearTimeout(t);
      res(true);
    });
  });
}

/** Resolves once 127.0.0.1:`port` accepts a connection; throws if the child exits first or `ms` pass. */
export async function waitListening(
  port: number,
  child: ChildProcess,
  what: string,
  errLog: () => string,
  ms = 10_000,
): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${what} exited with code ${child.exitCode}: ${errLog()}`);
    const ok = await new Promise<boolean>((res) => {
      const s = connect(port, '127.0.0.1');
      s.once('connect', () => (s.destroy(), res(true)));
      s.once('error', () => res(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`${what} did not listen on ${port} within ${ms} ms: ${errLog()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Sends `signal`, then SIGKILL if the child is still running after `graceMs`; resolves once it has exited. */
export async function stopChild(
  child: ChildProcess,
  signal: NodeJS.Signals = 'SIGTERM',
  graceMs = 5_000,
): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill(signal);
  if (!(await waitExit(child, graceMs))) {
    child.kill('SIGKILL');
    await waitExit(child, 2_000);
  }
}
