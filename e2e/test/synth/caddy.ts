/**
 * Debian's Caddy serving HTTP/3 for the runner's tests, in a temporary folder (HOME and XDG folders
 * too: Caddy writes nothing outside it). Stopped by process id.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { caddyGlobalOptions, spawnCaddy } from '../../lab/caddy-conf';
import { stderrTail, stopChild, waitListening } from '../../lab/children';
import { freePort } from '../../lab/ports';
import type { TestCerts } from './certs';

export async function startCaddy(certs: TestCerts): Promise<{ port: number; stop: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'tlsrum-synth-caddy-'));
  mkdirSync(join(dir, 'storage'));
  const port = await freePort();
  writeFileSync(
    join(dir, 'Caddyfile'),
    `${caddyGlobalOptions(`${dir}/storage`)}
https://a.synth.test:${port} {
  tls ${certs.chainPem} ${certs.leafKey}
  header Content-Type text/html
  header Cache-Control no-store
  respond "<!doctype html><link rel=icon href=data:,><body>h3</body>" 200
}
`,
  );
  const child = spawnCaddy(join(dir, 'Caddyfile'), dir, join(dir, 'storage'));
  // Caddy listens on TCP and UDP together; the TCP port answering means the server is up.
  await waitListening(port, child, 'caddy', stderrTail(child));
  return {
    port,
    stop: async () => {
      await stopChild(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
