/**
 * Debian's Caddy serving HTTP/3 for the runner's tests, in a temporary folder (HOME and XDG folders
 * too: Caddy writes nothing outside it). Stopped by process id.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestCerts } from './certs';
import { freePort, waitListening } from './nginx';

export const CADDY = '/usr/bin/caddy';

export async function startCaddy(certs: TestCerts): Promise<{ port: number; stop: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'tlsrum-synth-caddy-'));
  mkdirSync(join(dir, 'storage'));
  const port = await freePort();
  writeFileSync(
    join(dir, 'Caddyfile'),
    `{
  admin off
  default_bind 127.0.0.1
  skip_install_trust
  auto_https disable_redirects
  storage file_system ${dir}/storage
  servers {
    protocols h1 h2 h3
  }
}
https://a.synth.test:${port} {
  tls ${certs.chainPem} ${certs.leafKey}
  header Content-Type text/html
  header Cache-Control no-store
  respond "<!doctype html><link rel=icon href=data:,><body>h3</body>" 200
}
`,
  );
  const child = spawn(CADDY, ['run', '--config', join(dir, 'Caddyfile'), '--adapter', 'caddyfile'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, HOME: dir, XDG_DATA_HOME: join(dir, 'storage'), XDG_CONFIG_HOME: join(dir, 'storage') },
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  // Caddy listens on TCP and UDP together; the TCP port answering means the server is up.
  await waitListening(port, child, () => stderr);
  return {
    port,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        const t = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exited;
        clearTimeout(t);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
