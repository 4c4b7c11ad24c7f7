/**
 * Servers whose TLS configuration the site probe must read back exactly (e2e/test/probe-lab.test.ts and the
 * probe-change alert test): one nginx with four configurations the main lab does not cover — a TLS 1.2-only
 * RSA-4096 server without resumption, a TLS 1.3 ECDSA server with tickets, 0-RTT, h3 advertised and a stapled
 * OCSP response signed by the lab CA, a server still accepting TLS 1.0/1.1, and one whose tickets can be turned
 * off and on while it runs (`setTickets`: config rewritten, nginx reloaded by SIGHUP).
 *
 * Each configuration is declared once in PROBE_SERVERS with the facts a probe must find.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { issueLeaf, makeLabCa, ocspResponse, type LabCa, type LabLeaf } from './ca';
import { stderrTail, stopChild, waitListening } from './children';
import { nginxTempPaths, spawnNginx } from './nginx-conf';
import { freePort } from './ports';

export type ProbeServerId = 't12-rsa4096' | 't13-ecdsa-ocsp' | 'legacy-t10' | 'toggle-tickets';

export interface ProbeServerSpec {
  id: ProbeServerId;
  host: string;
  /** What `pnpm probe --json` must report (versions, resumption, …); the leaf and chain are checked from `leaf`. */
  expect: {
    versions: Record<'1.0' | '1.1' | '1.2' | '1.3', boolean>;
    alpn: 'h2' | 'http/1.1';
    resumption: { '1.2': boolean | null; '1.3': boolean | null };
    ticketLifetimeS: number | null;
    earlyData: boolean | null;
    ocspStapled: boolean;
    h3: boolean;
    leaf: { keyType: 'rsa' | 'ecdsa'; keyBits: number; signatureAlgorithm: string };
  };
}

const TICKET_TIMEOUT_S = 600;
const H3_ALT_SVC = 'h3=":443"; ma=86400';

export const PROBE_SERVERS: readonly ProbeServerSpec[] = [
  {
    id: 't12-rsa4096',
    host: 'rsa.probe.test',
    expect: {
      versions: { '1.0': false, '1.1': false, '1.2': true, '1.3': false },
      alpn: 'http/1.1',
      resumption: { '1.2': false, '1.3': null },
      ticketLifetimeS: null,
      earlyData: null,
      ocspStapled: false,
      h3: false,
      leaf: { keyType: 'rsa', keyBits: 4096, signatureAlgorithm: 'ecdsa-with-SHA256' },
    },
  },
  {
    id: 't13-ecdsa-ocsp',
    host: 'ocsp.probe.test',
    expect: {
      versions: { '1.0': false, '1.1': false, '1.2': false, '1.3': true },
      alpn: 'h2',
      resumption: { '1.2': null, '1.3': true },
      ticketLifetimeS: TICKET_TIMEOUT_S,
      earlyData: true,
      ocspStapled: true,
      h3: true,
      leaf: { keyType: 'ecdsa', keyBits: 256, signatureAlgorithm: 'ecdsa-with-SHA256' },
    },
  },
  {
    id: 'legacy-t10',
    host: 'legacy.probe.test',
    expect: {
      versions: { '1.0': true, '1.1': true, '1.2': true, '1.3': false },
      alpn: 'http/1.1',
      resumption: { '1.2': true, '1.3': null },
      ticketLifetimeS: TICKET_TIMEOUT_S,
      earlyData: null,
      ocspStapled: false,
      h3: false,
      leaf: { keyType: 'ecdsa', keyBits: 256, signatureAlgorithm: 'ecdsa-with-SHA256' },
    },
  },
  {
    id: 'toggle-tickets',
    host: 'toggle.probe.test',
    expect: {
      versions: { '1.0': false, '1.1': false, '1.2': true, '1.3': true },
      alpn: 'h2',
      resumption: { '1.2': true, '1.3': true },
      ticketLifetimeS: TICKET_TIMEOUT_S,
      earlyData: false,
      ocspStapled: false,
      h3: false,
      leaf: { keyType: 'ecdsa', keyBits: 256, signatureAlgorithm: 'ecdsa-with-SHA256' },
    },
  },
];

export interface ProbeLab {
  dir: string;
  ca: LabCa;
  ports: Record<ProbeServerId, number>;
  url(id: ProbeServerId): string;
  /** `--resolve` pairs mapping every probe lab host to 127.0.0.1. */
  resolve: Record<string, string>;
  /** The ECDSA leaf of the nginx servers; also names `pq.probe.test`, for a Node TLS server the tests start. */
  ecdsaLeaf: LabLeaf;
  /** A leaf for `expired.probe.test` whose validity ended in 2020 (signed by the lab CA). */
  expiredLeaf: LabLeaf;
  /** Turns session tickets and the session cache of `toggle-tickets` on or off; resolves once nginx reloaded. */
  setTickets(on: boolean): Promise<void>;
  stop(): Promise<void>;
}

interface Files {
  rsa: LabLeaf;
  ec: LabLeaf;
  ocsp: string;
}

function serverBlock(id: ProbeServerId, port: number, f: Files, dir: string, ticketsOn: boolean): string {
  const spec = PROBE_SERVERS.find((s) => s.id === id)!;
  const lines: string[] = [];
  const leaf = id === 't12-rsa4096' ? f.rsa : f.ec;
  lines.push(`listen 127.0.0.1:${port} ssl${spec.expect.alpn === 'h2' ? ' http2' : ''};`, `server_name ${spec.host};`);
  lines.push(
    `ssl_certificate ${leaf.cert};`,
    `ssl_certificate_key ${leaf.key};`,
    `ssl_session_timeout ${TICKET_TIMEOUT_S}s;`,
  );
  switch (id) {
    case 't12-rsa4096':
      lines.push('ssl_protocols TLSv1.2;', 'ssl_session_cache off;', 'ssl_session_tickets off;');
      break;
    case 't13-ecdsa-ocsp':
      lines.push(
        'ssl_protocols TLSv1.3;',
        'ssl_session_cache shared:ocsp:1m;',
        'ssl_session_tickets on;',
        'ssl_early_data on;',
      );
      lines.push('ssl_stapling on;', `ssl_stapling_file ${f.ocsp};`, `add_header Alt-Svc '${H3_ALT_SVC}' always;`);
      break;
    case 'legacy-t10':
      // Debian's openssl.cnf sets MinProtocol TLSv1.2 and SECLEVEL=2; nginx's ssl_protocols and this cipher
      // string lower both for this server only.
      lines.push(
        'ssl_protocols TLSv1 TLSv1.1 TLSv1.2;',
        'ssl_ciphers DEFAULT@SECLEVEL=0;',
        'ssl_session_cache shared:legacy:1m;',
        'ssl_session_tickets on;',
      );
      break;
    case 'toggle-tickets':
      lines.push('ssl_protocols TLSv1.2 TLSv1.3;');
      // OpenSSL still resumes TLS 1.3 with stateful tickets when a session cache exists: "off" turns both off.
      lines.push(
        ...(ticketsOn
          ? ['ssl_session_cache shared:toggle:1m;', 'ssl_session_tickets on;']
          : ['ssl_session_cache off;', 'ssl_session_tickets off;']),
      );
      break;
  }
  return [
    '  server {',
    ...lines.map((l) => `    ${l}`),
    `    access_log ${dir}/logs/${id}.log;`,
    `    location / { return 200 "${id}\\n"; }`,
    '  }',
  ].join('\n');
}

function renderConf(dir: string, ports: Record<ProbeServerId, number>, f: Files, ticketsOn: boolean): string {
  return `# Generated by e2e/lab/probe-servers.ts
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/logs/error.log notice;
events { worker_connections 128; }
http {
${nginxTempPaths(dir)}
  keepalive_timeout 1s;
  default_type text/plain;
${PROBE_SERVERS.map((s) => serverBlock(s.id, ports[s.id], f, dir, ticketsOn)).join('\n')}
}
`;
}

export async function startProbeLab(dir: string): Promise<ProbeLab> {
  for (const sub of ['logs', 'tmp', 'ca']) mkdirSync(join(dir, sub), { recursive: true });
  const hosts = PROBE_SERVERS.map((s) => s.host);
  const ca = makeLabCa(join(dir, 'ca'), hosts);
  const files: Files = {
    rsa: issueLeaf(ca.dir, 'rsa4096', ['rsa.probe.test'], { key: 'rsa:4096' }),
    ec: issueLeaf(ca.dir, 'ecdsa', [...hosts.filter((h) => h !== 'rsa.probe.test'), 'pq.probe.test']),
    ocsp: '',
  };
  files.ocsp = ocspResponse(ca.dir, files.ec, 'ecdsa-ocsp');
  const expiredLeaf = issueLeaf(ca.dir, 'expired', ['expired.probe.test'], { expired: true });
  const ports = {} as Record<ProbeServerId, number>;
  for (const s of PROBE_SERVERS) ports[s.id] = await freePort();
  const conf = join(dir, 'nginx.conf');
  writeFileSync(conf, renderConf(dir, ports, files, true));
  const nginx = spawnNginx(dir, conf);
  const err = stderrTail(nginx);
  const errLog = () =>
    err() +
    (existsSync(join(dir, 'logs', 'error.log'))
      ? readFileSync(join(dir, 'logs', 'error.log'), 'utf8').slice(-2000)
      : '');
  try {
    for (const s of PROBE_SERVERS) await waitListening(ports[s.id], nginx, 'nginx (probe lab)', errLog);
  } catch (e) {
    await stopChild(nginx);
    throw e;
  }
  return {
    dir,
    ca,
    ports,
    url: (id) => `https://${PROBE_SERVERS.find((s) => s.id === id)!.host}:${ports[id]}/`,
    resolve: Object.fromEntries([...hosts, 'pq.probe.test', 'expired.probe.test'].map((h) => [h, '127.0.0.1'])),
    ecdsaLeaf: files.ec,
    expiredLeaf,
    async setTickets(on) {
      writeFileSync(conf, renderConf(dir, ports, files, on));
      const before = readFileSync(join(dir, 'logs', 'error.log'), 'utf8').length;
      nginx.kill('SIGHUP');
      // Live once the new worker runs and the old one, which may still accept for a moment, has exited.
      const deadline = Date.now() + 10_000;
      for (;;) {
        const log = readFileSync(join(dir, 'logs', 'error.log'), 'utf8').slice(before);
        if (/start worker process/.test(log) && /worker process \d+ exited/.test(log)) return;
        if (/\[emerg\]/.test(log)) throw new Error(`nginx reload failed: ${log}`);
        if (Date.now() > deadline) throw new Error(`nginx did not reload within 10 s: ${log}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    stop: () => stopChild(nginx),
  };
}
