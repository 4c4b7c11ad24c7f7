/**
 * A tiny nginx (Debian's) for the runner's tests: two TLS servers in a temporary folder, each page
 * with a same-origin script, a cross-origin script without Timing-Allow-Origin and one with it.
 * Every response says what nginx negotiated (`X-TLS`), so the tests compare the browser's report with
 * the server's. Stopped by process id.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stderrTail, stopChild, waitListening } from '../../lab/children';
import { nginxTempPaths, spawnNginx } from '../../lab/nginx-conf';
import { freePort } from '../../lab/ports';
import type { TestCerts } from './certs';

export interface TestNginx {
  dir: string;
  /** TLS 1.3 only, session tickets on, h2. */
  t13: number;
  /** TLS 1.2 only, one cipher suite (ECDHE-ECDSA-AES128-GCM-SHA256), session cache + tickets. */
  t12: number;
  accessLog: () => string[];
  stop: () => Promise<void>;
}

function page(port: number, b: number, c: number): string {
  // Same origin (a.), cross-origin without TAO (b.), cross-origin with TAO (c.). b. and c. listen on
  // ports of their own: on one address:port with one certificate Chromium would pool them into the
  // page's HTTP/2 connection (IP-based connection pooling) and open no connection to measure.
  return (
    `<!doctype html><html><head><link rel="icon" href="data:,">` +
    `<script src="https://a.synth.test:${port}/s.js"></script>` +
    `<script src="https://b.synth.test:${b}/s.js"></script>` +
    `<script src="https://c.synth.test:${c}/s.js"></script>` +
    `</head><body>synth test</body></html>`
  ).replace(/'/g, "\\'");
}

export async function startNginx(certs: TestCerts): Promise<TestNginx> {
  const dir = mkdtempSync(join(tmpdir(), 'tlsrum-synth-nginx-'));
  mkdirSync(join(dir, 'logs'));
  mkdirSync(join(dir, 'tmp'));
  const t13 = await freePort();
  const t12 = await freePort();
  const b = await freePort();
  const c = await freePort();
  const server = (port: number, protocols: string, extra: string[]) => `
  server {
    listen 127.0.0.1:${port} ssl http2;
    server_name a.synth.test b.synth.test c.synth.test;
    ssl_certificate ${certs.chainPem};
    ssl_certificate_key ${certs.leafKey};
    ssl_protocols ${protocols};
    ssl_ecdh_curve X25519:prime256v1;
    ${extra.join('\n    ')}
    access_log ${dir}/logs/access.log synth;
    add_header X-TLS "$ssl_protocol $ssl_session_reused $connection" always;
    add_header Cache-Control "no-store" always;
    location = /page { default_type text/html; return 200 '${page(port, b, c)}'; }
    location = /s.js {
      default_type application/javascript;
      if ($host = c.synth.test) { add_header Timing-Allow-Origin "*" always; add_header X-TLS "$ssl_protocol $ssl_session_reused $connection" always; }
      return 200 '/* ok */';
    }
    location / { return 404; }
  }`;
  writeFileSync(
    join(dir, 'nginx.conf'),
    `worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/logs/error.log warn;
events { worker_connections 128; }
http {
${nginxTempPaths(dir)}
  keepalive_timeout 1s;
  log_format synth '$host $ssl_protocol $ssl_cipher $ssl_session_reused $connection $uri';
${server(t13, 'TLSv1.3', ['ssl_session_cache shared:t13:1m;', 'ssl_session_tickets on;'])}
${server(t12, 'TLSv1.2', ['ssl_ciphers ECDHE-ECDSA-AES128-GCM-SHA256;', 'ssl_session_cache shared:t12:1m;', 'ssl_session_tickets on;'])}
${server(b, 'TLSv1.3', ['ssl_session_cache shared:b:1m;'])}
${server(c, 'TLSv1.3', ['ssl_session_cache shared:c:1m;'])}
}
`,
  );
  const child = spawnNginx(dir, join(dir, 'nginx.conf'));
  const stderr = stderrTail(child);
  for (const port of [t13, t12, b, c]) await waitListening(port, child, 'nginx', stderr);
  return {
    dir,
    t13,
    t12,
    accessLog: () => {
      try {
        return readFileSync(join(dir, 'logs', 'access.log'), 'utf8')
          .split('\n')
          .filter(Boolean);
      } catch {
        return [];
      }
    },
    stop: async () => {
      // SIGQUIT: a graceful stop, so the access log is complete.
      await stopChild(child, 'SIGQUIT');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
