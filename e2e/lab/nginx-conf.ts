/**
 * One nginx process (one worker, so `$connection` is unique across servers) serving the lab's TCP
 * configurations. Every path is inside the lab folder; the system's nginx config is never read.
 *
 * The TLS 1.2 server without ALPN is the `stream` module terminating TLS in front of a plain HTTP/1.1
 * server: nginx's http module answers ALPN `http/1.1` whenever the client offers it (ngx_http_ssl_alpn_select),
 * and with any ALPN Chromium and Firefox use TLS False Start, so a full TLS 1.2 handshake costs 1 RTT, not 2.
 * The stream module selects no ALPN unless `ssl_alpn` is set. PROXY protocol carries the client's port to
 * the HTTP server so the response can name its TLS connection.
 *
 * `X-Lab-Conn: <client address> <client port> [<nginx connection number>]` names the TLS connection of
 * every response: the client address is the proxy profile's 127.0.0.N (ports repeat across addresses).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { LabCa } from './ca';
import type { CryptoServerId } from './crypto-servers';
import { hostOf, type ServerId } from './servers';

export const NGINX_BIN = '/usr/sbin/nginx';

/** nginx in the foreground with `dir` as its prefix: it reads no system config and writes only inside `dir`. */
export function spawnNginx(dir: string, conf: string, errorLog = join(dir, 'logs', 'error.log')): ChildProcess {
  return spawn(NGINX_BIN, ['-p', dir, '-c', conf, '-e', errorLog, '-g', 'daemon off;'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
}

/** The `http` block's temporary folders, inside `dir` (the defaults under /var/lib need root). */
export function nginxTempPaths(dir: string): string {
  const folders = { client_body: 'body', proxy: 'proxy', fastcgi: 'fastcgi', uwsgi: 'uwsgi', scgi: 'scgi' };
  return Object.entries(folders)
    .map(([directive, folder]) => `  ${directive}_temp_path ${dir}/tmp/${folder};`)
    .join('\n');
}

export interface NginxPorts {
  't12-noalpn': number;
  /** Plain HTTP/1.1 server behind the stream TLS terminator. */
  noalpnBackend: number;
  't12-h2': number;
  't13-h2': number;
  't13-notix': number;
  't13-0rtt': number;
}

export const JSON_HTTP_LOG =
  `'{"t":$msec,"server":"$lab_server","host":"$host","conn":$connection,"req":$connection_requests,` +
  `"remote":"$remote_addr","port":"$remote_port","ppPort":"$proxy_protocol_port","proto":"$ssl_protocol","cipher":"$ssl_cipher",` +
  `"reused":"$ssl_session_reused","early":"$ssl_early_data","curve":"$ssl_curve","alpn":"$ssl_alpn_protocol",` +
  `"sni":"$ssl_server_name","http":"$server_protocol","uri":"$uri","status":$status}'`;

// No $ssl_curve here: in nginx 1.22's stream module it crashes the worker (SIGSEGV) when logging a
// connection closed before the handshake (seen with a plain TCP connect + close).
export const JSON_STREAM_LOG =
  `'{"t":$msec,"server":"t12-noalpn","conn":$connection,"remote":"$remote_addr","port":"$remote_port",` +
  `"proto":"$ssl_protocol","cipher":"$ssl_cipher","reused":"$ssl_session_reused",` +
  `"alpn":"$ssl_alpn_protocol","sni":"$ssl_server_name","sessionTime":"$session_time","status":$status}'`;

interface HttpServer {
  id: Exclude<ServerId, 't12-noalpn' | 'h3' | CryptoServerId>;
  protocols: string;
  extra: string[];
  http2: boolean;
}

const HTTP_SERVERS: HttpServer[] = [
  {
    id: 't12-h2',
    protocols: 'TLSv1.2',
    http2: true,
    extra: ['ssl_session_cache shared:t12h2:1m;', 'ssl_session_tickets on;'],
  },
  {
    id: 't13-h2',
    protocols: 'TLSv1.3',
    http2: true,
    extra: ['ssl_session_cache shared:t13h2:1m;', 'ssl_session_tickets on;'],
  },
  // OpenSSL still resumes TLS 1.3 with stateful tickets when a session cache exists: turn both off.
  { id: 't13-notix', protocols: 'TLSv1.3', http2: true, extra: ['ssl_session_cache off;', 'ssl_session_tickets off;'] },
  {
    id: 't13-0rtt',
    protocols: 'TLSv1.3',
    http2: true,
    extra: ['ssl_session_cache shared:t130rtt:1m;', 'ssl_session_tickets on;', 'ssl_early_data on;'],
  },
];

/** Headers every lab response carries; Timing-Allow-Origin and Server-Timing only on `b.` hosts. */
export function commonLocation(www: string, tlsKnown: boolean): string[] {
  return [
    `root ${www};`,
    'add_header X-Lab-Conn "$lab_conn" always;',
    ...(tlsKnown ? ['add_header X-TLS "$ssl_protocol $ssl_session_reused $ssl_early_data" always;'] : []),
    'add_header Timing-Allow-Origin $lab_tao always;',
    ...(tlsKnown ? ['add_header Server-Timing $lab_st always;'] : []),
    'add_header Cache-Control "no-store" always;',
    'add_header Access-Control-Allow-Origin "*" always;',
  ];
}

/** More `server` blocks (crypto-lab.ts) and the name each of their ports has in the logs. */
export interface ExtraNginxServers {
  blocks: string[];
  labServers: Record<string, number>;
}

export function renderNginxConf(
  dir: string,
  www: string,
  ca: LabCa,
  ports: NginxPorts,
  extra: ExtraNginxServers = { blocks: [], labServers: {} },
): string {
  const logs = `${dir}/logs`;
  const tls = [
    `ssl_certificate ${ca.leafCert};`,
    `ssl_certificate_key ${ca.leafKey};`,
    'ssl_ecdh_curve X25519:prime256v1;',
  ];
  const names = (id: ServerId) => ['a', 'b', 'c'].map((p) => hostOf(p as 'a', id)).join(' ');
  const httpServers = HTTP_SERVERS.map((s) =>
    [
      '  server {',
      `    listen 127.0.0.1:${ports[s.id]} ssl${s.http2 ? ' http2' : ''};`,
      `    server_name ${names(s.id)};`,
      `    ssl_protocols ${s.protocols};`,
      ...tls.map((l) => `    ${l}`),
      ...s.extra.map((l) => `    ${l}`),
      `    access_log ${logs}/${s.id}.log labjson;`,
      '    location / {',
      ...commonLocation(www, true).map((l) => `      ${l}`),
      '    }',
      '  }',
    ].join('\n'),
  );
  return `# Generated by e2e/lab: do not edit. Runs as: nginx -p ${dir} -c ${dir}/nginx.conf
load_module /usr/lib/nginx/modules/ngx_stream_module.so;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${logs}/nginx-error.log warn;
events { worker_connections 512; }

stream {
  log_format streamjson escape=json ${JSON_STREAM_LOG};
  server {
    listen 127.0.0.1:${ports['t12-noalpn']} ssl;
    ssl_protocols TLSv1.2;
${tls.map((l) => `    ${l}`).join('\n')}
    ssl_session_cache shared:t12noalpn:1m;
    ssl_session_tickets on;
    proxy_pass 127.0.0.1:${ports.noalpnBackend};
    proxy_protocol on;
    access_log ${logs}/t12-noalpn.log streamjson;
  }
}

http {
  default_type application/octet-stream;
  types { text/html html; image/gif gif; text/css css; application/javascript js; }
${nginxTempPaths(dir)}
  sendfile off;
  # Idle connections close after 1 s, so a warm visit started later opens new connections (and may resume).
  keepalive_timeout 1s;
  log_format labjson escape=json ${JSON_HTTP_LOG};
  # Maps, not \`set\`: a request refused before the rewrite phase (400) is logged too.
  map $server_port $lab_server {
${[...HTTP_SERVERS.map((s) => `    ${ports[s.id]} ${s.id};`), `    ${ports.noalpnBackend} t12-noalpn-backend;`, ...Object.entries(extra.labServers).map(([id, port]) => `    ${port} ${id};`)].join('\n')}
  }
  map $server_port $lab_conn { ${ports.noalpnBackend} "$proxy_protocol_addr $proxy_protocol_port"; default "$remote_addr $remote_port $connection"; }
  map $host $lab_tao { ~^b\\. "*"; default ""; }
  map $host $lab_st { ~^b\\. 'tls;desc="$ssl_protocol $ssl_session_reused"'; default ""; }

  # Plain HTTP/1.1 behind the stream TLS terminator: the connection is named by the TLS side's client port.
  server {
    listen 127.0.0.1:${ports.noalpnBackend} proxy_protocol;
    server_name ${names('t12-noalpn')};
    access_log ${logs}/t12-noalpn-backend.log labjson;
    location / {
${commonLocation(www, false)
  .map((l) => `      ${l}`)
  .join('\n')}
    }
  }

${[...httpServers, ...extra.blocks].join('\n\n')}
}
`;
}
