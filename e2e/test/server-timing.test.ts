/**
 * docs/server-timing.md's nginx and Caddy snippets, exactly as the page prints them, in real nginx and Caddy:
 * two HTTPS requests per server, the second offering the first one's TLS session, and what each server
 * really sends parsed by tlsrum's own parser (shared/src/classify/server-timing.ts). Versions are what
 * Node negotiated; resumption is what Node saw (`isSessionReused`).
 */
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { connect, type TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTlsServerTiming } from '@tlsrum/shared/classify';
import { makeLabCa, type LabCa } from '../lab/ca';
import { caddyGlobalOptions, spawnCaddy } from '../lab/caddy-conf';
import { nginxTempPaths, spawnNginx } from '../lab/nginx-conf';
import { freePort } from '../lab/ports';

const DOC = readFileSync(resolve(import.meta.dirname, '..', '..', 'docs', 'server-timing.md'), 'utf8');
/** The one line of the page's fenced block for `lang`. */
function snippet(lang: string): string {
  const m = new RegExp('```' + lang + '\\n([^\\n]+)\\n```').exec(DOC);
  if (!m) throw new Error(`docs/server-timing.md has no \`\`\`${lang} block`);
  return m[1]!;
}

const HOST = 'st.lab.test';
const dir = mkdtempSync(join(tmpdir(), 'tlsrum-server-timing-'));
let ca: LabCa;
const children: ChildProcess[] = [];
const ports = { nginx: 0, caddy: 0 };

async function waitForPort(port: number): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const ok = await new Promise<boolean>((done) => {
      const s = connect(
        { host: '127.0.0.1', port, rejectUnauthorized: false, servername: HOST },
        () => (s.end(), done(true)),
      );
      s.on('error', () => done(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`nothing listens on ${port}`);
}

beforeAll(async () => {
  ca = makeLabCa(join(dir, 'ca'), [HOST]);
  ports.nginx = await freePort();
  ports.caddy = await freePort();
  const ngx = join(dir, 'nginx');
  for (const sub of ['logs', 'tmp']) mkdirSync(join(ngx, sub), { recursive: true });
  writeFileSync(
    join(ngx, 'nginx.conf'),
    `worker_processes 1;
pid ${ngx}/nginx.pid;
events { worker_connections 64; }
http {
${nginxTempPaths(ngx)}
  access_log off;
  server {
    listen 127.0.0.1:${ports.nginx} ssl;
    server_name ${HOST};
    ssl_certificate ${ca.leafCert};
    ssl_certificate_key ${ca.leafKey};
    ssl_protocols TLSv1.3;
    ssl_session_cache shared:st:1m;
    ssl_session_tickets on;
    ${snippet('nginx')}
    location / { return 200 "ok"; }
  }
}
`,
  );
  children.push(spawnNginx(ngx, join(ngx, 'nginx.conf')));
  const caddyDir = join(dir, 'caddy');
  mkdirSync(join(caddyDir, 'storage'), { recursive: true });
  writeFileSync(
    join(caddyDir, 'Caddyfile'),
    `${caddyGlobalOptions(join(caddyDir, 'storage'))}

https://${HOST}:${ports.caddy} {
  tls ${ca.leafCert} ${ca.leafKey}
  ${snippet('caddy')}
  respond "ok"
}
`,
  );
  children.push(spawnCaddy(join(caddyDir, 'Caddyfile'), caddyDir, join(caddyDir, 'storage')));
  await Promise.all([waitForPort(ports.nginx), waitForPort(ports.caddy)]);
}, 60_000);

afterAll(() => {
  for (const c of children) c.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
});

interface Exchange {
  version: string | null;
  reused: boolean;
  serverTiming: string | null;
  session: Buffer | null;
}

/** One HTTP/1.1 request on a new TLS connection (offering `session`); the Server-Timing header as sent. */
function request(port: number, session: Buffer | null): Promise<Exchange> {
  return new Promise((done, fail) => {
    let ticket: Buffer | null = null;
    let text = '';
    const socket: TLSSocket = connect(
      {
        host: '127.0.0.1',
        port,
        servername: HOST,
        ca: readFileSync(ca.caCert),
        ALPNProtocols: ['http/1.1'],
        ...(session ? { session } : {}),
      },
      () => {
        socket.write(`GET / HTTP/1.1\r\nHost: ${HOST}\r\nConnection: close\r\n\r\n`);
      },
    );
    socket.on('session', (s: Buffer) => (ticket = s));
    socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
    socket.on('error', fail);
    socket.on('end', () => {
      const header = /^server-timing:\s*(.+?)\r$/im.exec(text);
      done({
        version: socket.getProtocol(),
        reused: socket.isSessionReused(),
        serverTiming: header ? header[1]! : null,
        session: ticket,
      });
    });
  });
}

/** The `desc` of the `tls` metric in a Server-Timing header value (as a browser's PerformanceServerTiming gives it). */
function tlsDescription(header: string | null): string | null {
  const metric = header?.split(',').find((m) => m.trim().split(';')[0] === 'tls');
  const desc = metric && /;\s*desc=(?:"((?:[^"\\]|\\.)*)"|([^;,\s]+))/.exec(metric);
  return desc ? (desc[1] ?? desc[2] ?? '').replace(/\\(.)/g, '$1') : null;
}

describe.each(['nginx', 'caddy'] as const)('docs/server-timing.md in %s', (server) => {
  it('a full handshake, then a resumed one: tlsrum reads the version and the resumption from what the server sends', async () => {
    const first = await request(ports[server], null);
    expect(first).toMatchObject({ version: 'TLSv1.3', reused: false });
    expect(parseTlsServerTiming(tlsDescription(first.serverTiming)), first.serverTiming ?? 'no header').toEqual({
      evidence: 'server-timing',
      tlsVersion: '1.3',
      resumed: false,
    });
    expect(first.session).not.toBeNull();
    const second = await request(ports[server], first.session);
    expect(second).toMatchObject({ version: 'TLSv1.3', reused: true });
    expect(parseTlsServerTiming(tlsDescription(second.serverTiming)), second.serverTiming ?? 'no header').toEqual({
      evidence: 'server-timing',
      tlsVersion: '1.3',
      resumed: true,
    });
  });
});
