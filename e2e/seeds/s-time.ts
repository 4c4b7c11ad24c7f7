/**
 * Server-side handshake cost the way seed 001 measured it: `openssl s_time -new` (a new full handshake
 * per connection, no request) against the lab's nginx on loopback, for a fixed time. The client runs on
 * the same (shared) machine, so a handshake's time here is client + server CPU, not the server's alone.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface STimeResult {
  connections: number;
  /** Wall time of the whole run, measured around it (s_time prints whole seconds only). */
  seconds: number;
  /** Wall time per handshake, ms: both ends' CPU and waiting on this shared machine. */
  msPerHandshake: number;
  /** The client's own CPU per handshake (s_time's "connections in X s" of user time), ms. */
  clientCpuMs: number;
}

/** s_time's `N connections in Xs; … connections/user sec` line → handshakes and the client's CPU seconds. */
export function parseSTime(stdout: string): { connections: number; userSeconds: number } {
  const m = /(\d+) connections in ([\d.]+)s;/.exec(stdout);
  if (!m) throw new Error(`openssl s_time printed no "N connections in Xs;" line:\n${stdout.slice(-500)}`);
  const connections = Number(m[1]);
  if (!connections) throw new Error('openssl s_time made no connection');
  return { connections, userSeconds: Number(m[2]) };
}

export async function sTime(port: number, version: '1.2' | '1.3', cipher: string, seconds = 4): Promise<STimeResult> {
  const args = ['s_time', '-connect', `127.0.0.1:${port}`, '-new', '-time', String(seconds)];
  args.push(...(version === '1.2' ? ['-tls1_2', '-cipher', cipher] : ['-tls1_3', '-ciphersuites', cipher]));
  const t0 = performance.now();
  const { stdout } = await run('openssl', args, { timeout: (seconds + 20) * 1000 });
  const wall = (performance.now() - t0) / 1000;
  const { connections, userSeconds } = parseSTime(stdout);
  return {
    connections,
    seconds: wall,
    msPerHandshake: (wall * 1000) / connections,
    clientCpuMs: (userSeconds * 1000) / connections,
  };
}
