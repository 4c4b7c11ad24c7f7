/**
 * Ground truth per TLS connection, from the servers' own logs: nginx (http and stream) and Caddy.
 * Keyed by server id + the client port the server saw (the lab proxy's upstream socket), which every
 * lab response repeats in its `X-Lab-Conn` header.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ServerId } from '../lab/servers';
import { SERVERS } from '../lab/servers';

export interface Truth {
  server: ServerId;
  port: number;
  /** null: the server does not log it (Caddy over HTTP/3). */
  tlsVersion: '1.2' | '1.3' | null;
  resumed: boolean | null;
  earlyData: boolean | null;
  alpn: string | null;
  cipher: string | null;
  /** Where the truth comes from. */
  from: 'nginx-http' | 'nginx-stream' | 'caddy' | 'client-h3';
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

export const truthKey = (server: string, port: number) => `${server}:${port}`;

export function readTruth(logDir: string): Map<string, Truth> {
  const out = new Map<string, Truth>();
  const put = (t: Truth) => {
    // Several requests on one connection log the same TLS state; the first line is enough.
    if (!out.has(truthKey(t.server, t.port))) out.set(truthKey(t.server, t.port), t);
  };
  for (const s of SERVERS) {
    if (s.software === 'nginx') {
      for (const l of lines(join(logDir, `${s.id}.log`))) {
        if (!l.proto) continue;
        put({
          server: s.id,
          port: Number(l.port),
          tlsVersion: VERSION[String(l.proto)] ?? null,
          resumed: l.reused === 'r',
          earlyData: l.early === '1',
          alpn: l.alpn ? String(l.alpn) : null,
          cipher: l.cipher ? String(l.cipher) : null,
          from: 'nginx-http',
        });
      }
    } else if (s.software === 'nginx-stream') {
      for (const l of lines(join(logDir, `${s.id}.log`))) {
        if (!l.proto) continue;
        put({
          server: s.id,
          port: Number(l.port),
          tlsVersion: VERSION[String(l.proto)] ?? null,
          resumed: l.reused === 'r',
          earlyData: false,
          alpn: l.alpn ? String(l.alpn) : null,
          cipher: l.cipher ? String(l.cipher) : null,
          from: 'nginx-stream',
        });
      }
    } else {
      for (const l of lines(join(logDir, `${s.id}.log`))) {
        const req = l.request as { remote_port?: string; proto?: string; tls?: { version?: number; resumed?: boolean; proto?: string } } | undefined;
        if (!req?.remote_port) continue;
        // Caddy 2.6 logs an all-zero tls object for HTTP/3 requests: treat version 0 as "not logged".
        const tls = req.tls?.version ? req.tls : undefined;
        put({
          server: s.id,
          port: Number(req.remote_port),
          // Caddy 2.6 logs no TLS state for HTTP/3 requests: QUIC is TLS 1.3 by definition (RFC 9001),
          // resumption and early data are only known to the client.
          tlsVersion: tls?.version === 772 ? '1.3' : tls?.version === 771 ? '1.2' : req.proto === 'HTTP/3.0' ? '1.3' : null,
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

export interface ProxyLine {
  profile: string;
  rttMs: number;
  host?: string;
  upstreamLocalPort: number | null;
  connectHeldMs?: number;
  up: { n: number; mean: number; min: number; max: number; first?: number[] };
  down: { n: number; mean: number; min: number; max: number; first?: number[] };
  transport?: 'udp';
}

/** The proxy's own log, keyed by the upstream port the server saw (TCP and UDP apart). */
export function readProxyLog(file: string): Map<string, ProxyLine> {
  const out = new Map<string, ProxyLine>();
  for (const l of lines(file) as unknown as ProxyLine[]) {
    if (l.upstreamLocalPort == null) continue;
    out.set(`${l.transport === 'udp' ? 'udp' : 'tcp'}:${l.upstreamLocalPort}`, l);
  }
  return out;
}
