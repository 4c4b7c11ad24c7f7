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
  seconds: number;
  /** Wall time per handshake, ms. */
  msPerHandshake: number;
}

/** `N connections in T real seconds` → ms per handshake. */
export function parseSTime(stdout: string): STimeResult {
  const m = /(\d+) connections in ([\d.]+) real seconds/.exec(stdout);
  if (!m) throw new Error(`openssl s_time printed no "connections in … real seconds" line:\n${stdout.slice(-500)}`);
  const connections = Number(m[1]);
  const seconds = Number(m[2]);
  if (!connections) throw new Error('openssl s_time made no connection');
  return { connections, seconds, msPerHandshake: (seconds * 1000) / connections };
}

export async function sTime(port: number, version: '1.2' | '1.3', cipher: string, seconds = 4): Promise<STimeResult> {
  const args = ['s_time', '-connect', `127.0.0.1:${port}`, '-new', '-time', String(seconds)];
  args.push(...(version === '1.2' ? ['-tls1_2', '-cipher', cipher] : ['-tls1_3', '-ciphersuites', cipher]));
  const { stdout } = await run('openssl', args, { timeout: (seconds + 20) * 1000 });
  return parseSTime(stdout);
}
