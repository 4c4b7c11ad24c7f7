/**
 * A small TLS lab for the extension's tests and fixture recording: a throw-away CA and one leaf
 * certificate per host (openssl), and nginx (Debian's, run without root in its own folder) with one
 * server per host, each on its own loopback port — separate certificates and ports so that neither
 * browser pools one host's requests onto another host's connection.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stderrTail, stopChild, waitListening } from '@tlsrum/e2e/lab/children';
import { nginxTempPaths, spawnNginx } from '@tlsrum/e2e/lab/nginx-conf';
import { freePort } from '@tlsrum/e2e/lab/ports';

export interface Certs {
  dir: string;
  caPem: string;
  /** base64 SHA-256 of each leaf's SubjectPublicKeyInfo, for Chromium's --ignore-certificate-errors-spki-list. */
  spki: string[];
  keyOf: (host: string) => string;
  certOf: (host: string) => string;
}

const openssl = (args: string[], cwd: string) =>
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });

export function makeCerts(dir: string, hosts: string[]): Certs {
  mkdirSync(dir, { recursive: true });
  openssl(
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      'ca.key',
      '-out',
      'ca.pem',
      '-days',
      '3',
      '-subj',
      '/CN=tlsrum test CA',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ],
    dir,
  );
  const spki: string[] = [];
  for (const host of hosts) {
    openssl(
      [
        'req',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-keyout',
        `${host}.key`,
        '-out',
        `${host}.csr`,
        '-subj',
        `/CN=${host}`,
      ],
      dir,
    );
    writeFileSync(
      join(dir, `${host}.ext`),
      `subjectAltName=DNS:${host}\nbasicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n`,
    );
    openssl(
      [
        'x509',
        '-req',
        '-in',
        `${host}.csr`,
        '-CA',
        'ca.pem',
        '-CAkey',
        'ca.key',
        '-CAcreateserial',
        '-out',
        `${host}.pem`,
        '-days',
        '3',
        '-extfile',
        `${host}.ext`,
      ],
      dir,
    );
    const pub = openssl(['x509', '-in', `${host}.pem`, '-pubkey', '-noout'], dir);
    const der = execFileSync('openssl', ['pkey', '-pubin', '-outform', 'der'], { input: pub });
    spki.push(execFileSync('openssl', ['dgst', '-sha256', '-binary'], { input: der }).toString('base64'));
  }
  return {
    dir,
    caPem: join(dir, 'ca.pem'),
    spki,
    keyOf: (h) => join(dir, `${h}.key`),
    certOf: (h) => join(dir, `${h}.pem`),
  };
}

export interface ServerSpec {
  host: string;
  /** nginx `ssl_protocols`, e.g. "TLSv1.3". */
  protocols: string;
  /** TLS 1.2 `ssl_ciphers` (OpenSSL names). */
  ciphers12?: string;
  /** TLS 1.3 cipher suites (`ssl_conf_command Ciphersuites`). */
  ciphers13?: string;
  http2: boolean;
  /** Timing-Allow-Origin: * on every response. */
  tao: boolean;
  /** Server-Timing: tls;desc="$ssl_protocol $ssl_session_reused". */
  serverTiming: boolean;
  /** Server-Timing: ed;desc="$ssl_early_data" ("1" when the request came as TLS 1.3 early data). */
  earlyDataTiming?: boolean;
  earlyData?: boolean;
  /** `ssl_ecdh_curve`; a group browsers send no key share for forces a HelloRetryRequest (TLS 1.3, 2 RTT). */
  ecdhCurve?: string;
  /** Session tickets (default on). */
  tickets?: boolean;
  /** Server-side session cache for TLS 1.2 session ids (default on). */
  sessionCache?: boolean;
  /** keepalive_timeout (default 60s); a short one makes the next visit open new connections. */
  keepalive?: string;
  /** Files served: path → content (`.gif` files get a 1×1 GIF). A function receives every server's port. */
  files: Record<string, string> | ((ports: Record<string, number>) => Record<string, string>);
}

export interface Nginx {
  dir: string;
  ports: Record<string, number>;
  url: (host: string, path?: string) => string;
  /** Access log lines: `$server_name $ssl_protocol $ssl_cipher $ssl_session_reused $connection $request_uri`. */
  accessLog: () => string[];
  stop: () => Promise<void>;
}

const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

export async function startNginx(dir: string, certs: Certs, specs: ServerSpec[]): Promise<Nginx> {
  for (const d of ['logs', 'tmp', 'www']) mkdirSync(join(dir, d), { recursive: true });
  const ports: Record<string, number> = {};
  for (const s of specs) ports[s.host] = await freePort();
  const servers = specs.map((s) => {
    const www = join(dir, 'www', s.host);
    const files = typeof s.files === 'function' ? s.files(ports) : s.files;
    for (const [path, content] of Object.entries(files)) {
      const file = join(www, path);
      mkdirSync(join(file, '..'), { recursive: true });
      writeFileSync(file, path.endsWith('.gif') ? PIXEL : content);
    }
    return `
  server {
    listen 127.0.0.1:${ports[s.host]} ssl${s.http2 ? ' http2' : ''};
    server_name ${s.host};
    ssl_certificate ${certs.certOf(s.host)};
    ssl_certificate_key ${certs.keyOf(s.host)};
    ssl_protocols ${s.protocols};
    ${s.ciphers12 ? `ssl_ciphers ${s.ciphers12};` : ''}
    ${s.ciphers13 ? `ssl_conf_command Ciphersuites ${s.ciphers13};` : ''}
    ssl_session_tickets ${s.tickets === false ? 'off' : 'on'};
    ssl_session_cache ${s.sessionCache === false ? 'off' : `shared:${s.host.replace(/\W/g, '_')}:1m`};
    keepalive_timeout ${s.keepalive ?? '60s'};
    ssl_early_data ${s.earlyData ? 'on' : 'off'};
    ${s.ecdhCurve ? `ssl_ecdh_curve ${s.ecdhCurve};` : ''}
    root ${www};
    ${s.tao ? 'add_header Timing-Allow-Origin "*" always;' : ''}
    ${s.serverTiming ? `add_header Server-Timing 'tls;desc="$ssl_protocol $ssl_session_reused"' always;` : ''}
    ${s.earlyDataTiming ? `add_header Server-Timing 'ed;desc="$ssl_early_data"' always;` : ''}
    add_header Cache-Control "no-store" always;
    location / { try_files $uri $uri/index.html =404; }
  }`;
  });
  const conf = `
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/logs/error.log warn;
events { worker_connections 256; }
http {
  types { text/html html; text/css css; application/javascript js; image/gif gif; }
  log_format tls '$server_name $ssl_protocol $ssl_cipher $ssl_session_reused $connection $request_uri';
  access_log ${dir}/logs/access.log tls;
${nginxTempPaths(dir)}
  keepalive_timeout 60s;
  ${servers.join('\n')}
}
`;
  writeFileSync(join(dir, 'nginx.conf'), conf);
  const child = spawnNginx(dir, join(dir, 'nginx.conf'));
  const stderr = stderrTail(child);
  const errors = () => stderr() + safeRead(join(dir, 'logs/error.log'));
  // Ready when every port accepts connections.
  for (const port of Object.values(ports)) await waitListening(port, child, 'nginx', errors);
  return {
    dir,
    ports,
    url: (host, path = '/') => `https://${host}:${ports[host]}${path}`,
    accessLog: () => safeRead(join(dir, 'logs/access.log')).split('\n').filter(Boolean),
    stop: () => stopChild(child, 'SIGTERM', 3_000),
  };
}

function safeRead(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

export function tempLabDir(prefix: string): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  // Run as root, nginx's workers drop to an unprivileged user: they must be able to read the pages.
  chmodSync(dir, 0o755);
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
