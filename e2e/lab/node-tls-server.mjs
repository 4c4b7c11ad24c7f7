// The lab's key-exchange arms: TLS 1.3 + HTTP/2 servers run by Node ≥ 24 (OpenSSL 3.5), each accepting
// exactly one key-exchange group (X25519MLKEM768, or X25519 alone), so every handshake that succeeds used
// that group. Plain JavaScript: Node 24 runs it directly, without the workspace's tsx.
// Serves the lab pages like the nginx servers: the same headers (X-Lab-Conn, X-TLS, Timing-Allow-Origin
// and Server-Timing on b. hosts) and one JSON log line per request with nginx's field names.
// Usage: node node-tls-server.mjs CONFIG.json   (prints one line `{"ready":true}` once every port listens)
import { appendFileSync, readFileSync } from 'node:fs';
import { createSecureServer } from 'node:http2';
import { extname, join, normalize } from 'node:path';

const config = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const TYPES = { '.html': 'text/html', '.gif': 'image/gif', '.css': 'text/css', '.js': 'application/javascript' };
// Idle connections close after 1 s, as nginx's keepalive_timeout in the lab: a later visit opens new ones.
const IDLE_MS = 1000;

function serve(s) {
  const sessions = new WeakMap();
  let connections = 0;
  const server = createSecureServer({
    cert: readFileSync(s.cert),
    key: readFileSync(s.key),
    ecdhCurve: s.group,
    minVersion: 'TLSv1.3',
    maxVersion: 'TLSv1.3',
    allowHTTP1: false,
  });
  server.on('session', (session) => {
    sessions.set(session, { conn: ++connections, requests: 0 });
    session.setTimeout(IDLE_MS, () => session.close());
  });
  server.on('request', (req, res) => {
    const session = req.stream.session;
    const state = sessions.get(session) ?? { conn: 0, requests: 0 };
    state.requests++;
    const socket = session.socket;
    const host = String(req.headers[':authority'] ?? '').replace(/:\d+$/, '');
    const proto = socket.getProtocol();
    const reused = socket.isSessionReused() ? 'r' : '.';
    const remote = socket.remoteAddress;
    const port = socket.remotePort;
    const path = normalize(decodeURIComponent(new URL(req.url, 'https://x').pathname));
    let body = null;
    if (!path.includes('..')) {
      try {
        body = readFileSync(join(s.www, path === '/' ? 'index.html' : path));
      } catch {
        body = null;
      }
    }
    const status = body ? 200 : 404;
    const headers = {
      'content-type': TYPES[extname(path)] ?? 'application/octet-stream',
      'x-lab-conn': `${remote} ${port} ${state.conn}`,
      'x-tls': `${proto} ${reused} `,
      'cache-control': 'no-store',
      'access-control-allow-origin': '*',
    };
    if (host.startsWith('b.')) {
      headers['timing-allow-origin'] = '*';
      headers['server-timing'] = `tls;desc="${proto} ${reused}"`;
    }
    res.writeHead(status, headers);
    res.end(body ?? 'not found\n');
    appendFileSync(
      s.log,
      JSON.stringify({
        t: Date.now() / 1000,
        server: s.id,
        host,
        conn: state.conn,
        req: state.requests,
        remote,
        port: String(port),
        proto,
        cipher: socket.getCipher()?.name ?? '',
        reused,
        early: '',
        // The only group this server accepts: a handshake that succeeded used it.
        curve: s.group,
        alpn: socket.alpnProtocol || '',
        sni: socket.servername || '',
        http: `HTTP/${req.httpVersion}`,
        uri: path,
        status,
      }) + '\n',
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(s.port, '127.0.0.1', () => resolve(server));
  });
}

const servers = await Promise.all(config.servers.map(serve));
process.stdout.write(JSON.stringify({ ready: true, openssl: process.versions.openssl }) + '\n');
process.on('SIGTERM', () => {
  for (const s of servers) s.close();
  process.exit(0);
});
