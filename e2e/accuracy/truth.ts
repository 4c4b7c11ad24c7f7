/**
 * Ground truth per TLS connection, from the servers' own logs: nginx (http and stream) and Caddy.
 * Every lab response names its connection in `X-Lab-Conn: <client address> <client port> [<nginx
 * connection>]`; the client is the lab proxy's upstream socket, bound to the profile's 127.0.0.N.
 * nginx's connection number is unique per nginx process; an address:port pair can repeat over a run
 * (ephemeral ports are reused), so without a connection number the line closest in time is taken.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ServerId } from '../lab/servers';
import { SERVERS } from '../lab/servers';

export interface Truth {
  server: ServerId;
  /** The request's host (Caddy logs it): joins the extension arm's h3 records, which carry no port. */
  host?: string;
  addr: string;
  port: number;
  /** nginx connection number (http module), when logged. */
  conn: number | null;
  /** Epoch ms of the log line (request time; for the stream module, the end of the session). */
  t: number;
  /** null: the server does not log it (Caddy over HTTP/3). */
  tlsVersion: '1.2' | '1.3' | null;
  resumed: boolean | null;
  earlyData: boolean | null;
  alpn: string | null;
  cipher: string | null;
  /** Key-exchange group as the server logged it (nginx `$ssl_curve`, OpenSSL names); null where not logged. */
  group?: string | null;
  /**
   * Where the truth comes from. `wire-h3`: version from Caddy (HTTP/3 is TLS 1.3), early data from the
   * client's 0-RTT packets in the UDP relay's log, resumption from the client's NetLog where it has one.
   */
  from: 'nginx-http' | 'nginx-stream' | 'caddy' | 'wire-h3' | 'node';
}

export interface LabConn {
  addr: string;
  port: number;
  conn: number | null;
}

const VERSION: Record<string, '1.2' | '1.3'> = { 'TLSv1.2': '1.2', 'TLSv1.3': '1.3' };

function lines(file: string): Record<string, unknown>[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
}

/** `X-Lab-Conn` → address, port and (nginx http) connection number. */
export function parseLabConn(value: string | undefined): LabConn | null {
  if (!value) return null;
  const [addr, port, conn] = value.trim().split(/\s+/);
  const p = Number(port);
  if (!addr || !Number.isInteger(p) || p <= 0) return null;
  const c = conn === undefined ? null : Number(conn);
  return { addr, port: p, conn: c !== null && Number.isInteger(c) ? c : null };
}

/** Picks, among lines for the same address:port, the one closest in time. */
function nearest<T extends { t: number }>(list: T[] | undefined, atMs: number): T | null {
  if (!list?.length) return null;
  return list.reduce((best, x) => (Math.abs(x.t - atMs) < Math.abs(best.t - atMs) ? x : best));
}

export class TruthIndex {
  private readonly byConn = new Map<string, Truth>();
  private readonly byAddr = new Map<string, Truth[]>();

  add(t: Truth): void {
    if (t.conn !== null) {
      const k = `${t.server}#${t.conn}`;
      // Several requests on one connection log the same TLS state; the first line is enough.
      if (!this.byConn.has(k)) this.byConn.set(k, t);
      else return;
    }
    const k = `${t.server}|${t.addr}:${t.port}`;
    this.byAddr.set(k, [...(this.byAddr.get(k) ?? []), t]);
  }

  lookup(server: ServerId, c: LabConn, atMs: number): Truth | null {
    if (c.conn !== null) {
      const t = this.byConn.get(`${server}#${c.conn}`);
      if (t) return t;
    }
    return nearest(this.byAddr.get(`${server}|${c.addr}:${c.port}`), atMs);
  }

  /** HTTP/3 connections (distinct client address:port) the server saw for a host between two instants. */
  h3Connections(addr: string, host: string, fromMs: number, toMs: number): Truth[] {
    const out = new Map<number, Truth>();
    for (const [k, list] of this.byAddr) {
      if (!k.startsWith(`h3|${addr}:`)) continue;
      for (const t of list)
        if (t.host === host && t.alpn === 'h3' && t.t >= fromMs && t.t <= toMs && !out.has(t.port)) out.set(t.port, t);
    }
    return [...out.values()];
  }

  get size(): number {
    return [...this.byAddr.values()].reduce((n, l) => n + l.length, 0);
  }
}

/** A stable name for one TLS connection across arms. */
export const connectionId = (t: Truth) => `${t.server}|${t.addr}:${t.port}|${t.conn ?? Math.round(t.t)}`;

export function readTruth(logDir: string): TruthIndex {
  const out = new TruthIndex();
  for (const s of SERVERS) {
    // The Node servers (crypto arms) log nginx's http fields.
    if (s.software === 'nginx' || s.software === 'nginx-stream' || s.software === 'node') {
      const stream = s.software === 'nginx-stream';
      for (const l of lines(join(logDir, `${s.id}.log`))) {
        if (!l.proto) continue;
        out.add({
          server: s.id,
          addr: String(l.remote),
          port: Number(l.port),
          // The stream module's connection numbers are not what the backend's header carries.
          conn: stream ? null : Number(l.conn),
          t: Number(l.t) * 1000,
          tlsVersion: VERSION[String(l.proto)] ?? null,
          resumed: l.reused === 'r',
          earlyData: stream ? false : l.early === '1',
          alpn: l.alpn ? String(l.alpn) : null,
          cipher: l.cipher ? String(l.cipher) : null,
          group: l.curve ? String(l.curve) : null,
          from: s.software === 'node' ? 'node' : stream ? 'nginx-stream' : 'nginx-http',
        });
      }
    } else {
      for (const l of lines(join(logDir, `${s.id}.log`))) {
        const req = l.request as
          | {
              remote_ip?: string;
              remote_port?: string;
              host?: string;
              proto?: string;
              tls?: { version?: number; resumed?: boolean; proto?: string };
            }
          | undefined;
        if (!req?.remote_port) continue;
        // Caddy 2.6 logs an all-zero tls object for HTTP/3 requests: treat version 0 as "not logged".
        const tls = req.tls?.version ? req.tls : undefined;
        out.add({
          server: s.id,
          ...(req.host ? { host: req.host.replace(/:\d+$/, '') } : {}),
          addr: String(req.remote_ip),
          port: Number(req.remote_port),
          conn: null,
          t: Number(l.ts) * 1000,
          // QUIC is TLS 1.3 by definition (RFC 9001); resumption and early data only the client knows.
          tlsVersion:
            tls?.version === 772 ? '1.3' : tls?.version === 771 ? '1.2' : req.proto === 'HTTP/3.0' ? '1.3' : null,
          resumed: typeof tls?.resumed === 'boolean' ? tls.resumed : null,
          earlyData: null,
          alpn: tls?.proto ?? (req.proto === 'HTTP/3.0' ? 'h3' : null),
          cipher: null,
          from: 'caddy',
        });
      }
    }
  }
  return out;
}

export interface ProxyDirection {
  n: number;
  mean: number;
  min: number;
  max: number;
  first?: number[];
  arrived?: number[];
  sizes?: number[];
  /** UDP only: the QUIC packet kinds in each of the first datagrams (lab/quic-packets.ts). */
  kinds?: string[];
}

export interface ProxyLine {
  t: number;
  profile: string;
  rttMs: number;
  host?: string;
  source: string;
  upstreamLocalPort: number | null;
  connectHeldMs?: number;
  /**
   * `first`: hold times of the first chunks; `arrived`: their arrival, ms after the connection began;
   * `sizes` (UDP only): their sizes in bytes.
   */
  up: ProxyDirection;
  down: ProxyDirection;
  transport?: 'udp';
  /** UDP only: how long the relay held datagrams behind the Initial gate (udp-relay.ts). */
  gateHeldMs?: number | null;
}

/** The proxy's own log, looked up by transport, source address and the upstream port the server saw. */
export class ProxyLog {
  private readonly lines = new Map<string, ProxyLine[]>();
  private readonly all: ProxyLine[] = [];

  constructor(file: string) {
    for (const l of lines(file) as unknown as ProxyLine[]) {
      if (l.upstreamLocalPort == null) continue;
      this.all.push(l);
      const k = `${l.transport === 'udp' ? 'udp' : 'tcp'}|${l.source}:${l.upstreamLocalPort}`;
      this.lines.set(k, [...(this.lines.get(k) ?? []), l]);
    }
  }

  lookup(transport: 'tcp' | 'udp', addr: string, port: number, atMs: number): ProxyLine | null {
    return nearest(this.lines.get(`${transport}|${addr}:${port}`), atMs);
  }

  /** TCP connections opened from a source address to a host between two instants. */
  opened(source: string, host: string, fromMs: number, toMs: number): ProxyLine[] {
    return this.all.filter(
      (l) => l.transport !== 'udp' && l.source === source && l.host === host && l.t >= fromMs && l.t <= toMs,
    );
  }
}

/**
 * The truth of an HTTP/3 connection. Caddy 2.6 logs no TLS state for HTTP/3, so: TLS 1.3 (RFC 9001);
 * early data when the client sent 0-RTT packets (the relay's log, from the packets' plaintext headers);
 * resumption from the client's NetLog when it has a verdict (Chromium: accepted 0-RTT), else — since a
 * client sends 0-RTT only with a session ticket — true when it sent early data, and unknown otherwise.
 */
export function h3Truth(t: Truth, proxy: ProxyLine | null, clientResumed: boolean | null = null): Truth {
  if (t.server !== 'h3' || t.alpn !== 'h3' || t.resumed !== null) return t;
  const kinds = proxy?.up.kinds;
  const early = kinds ? kinds.some((k) => k.includes('0')) : null;
  return { ...t, from: 'wire-h3', earlyData: early, resumed: clientResumed ?? (early ? true : null) };
}
