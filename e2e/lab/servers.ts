/**
 * The lab's server configurations and what each one guarantees about its handshakes: the ground truth
 * the accuracy report compares records against.
 */
import { CRYPTO_SERVERS, type CryptoServerId, type CryptoSpec } from './crypto-servers';

export type ServerId = 't12-noalpn' | 't12-h2' | 't13-h2' | 't13-notix' | 't13-0rtt' | 'h3' | CryptoServerId;

export interface ServerSpec {
  id: ServerId;
  /** Host name label: origins are `<prefix>.<id>.lab.test` (prefix a/b/c). */
  description: string;
  /** `node`: a Node ≥ 24 TLS server (node-tls-server.mjs), logging like nginx's http module. */
  software: 'nginx' | 'nginx-stream' | 'caddy' | 'node';
  tlsVersion: '1.2' | '1.3';
  /** ALPN the server selects when the browser offers h2 + http/1.1 (null: no ALPN extension in ServerHello). */
  alpn: 'h2' | 'http/1.1' | null;
  /** Whether a second connection can resume the first one's session. */
  resumption: boolean;
  earlyData: boolean;
  transport: 'tcp' | 'quic';
  /** Certificate and key exchange, when they differ from the lab leaf (crypto-servers.ts: LAB_LEAF_CRYPTO). */
  crypto?: CryptoSpec;
}

export const SERVERS: readonly ServerSpec[] = [
  {
    id: 't12-noalpn',
    description:
      'TLS 1.2 only, no ALPN (nginx stream module terminates TLS in front of plain HTTP/1.1): no False Start, full = 2 RTT, resumed = 1 RTT',
    software: 'nginx-stream',
    tlsVersion: '1.2',
    alpn: null,
    resumption: true,
    earlyData: false,
    transport: 'tcp',
  },
  {
    id: 't12-h2',
    description: 'TLS 1.2 only with h2 (ALPN: Chromium uses False Start, full = 1 RTT)',
    software: 'nginx',
    tlsVersion: '1.2',
    alpn: 'h2',
    resumption: true,
    earlyData: false,
    transport: 'tcp',
  },
  {
    id: 't13-h2',
    description: 'TLS 1.3 with h2, session tickets on',
    software: 'nginx',
    tlsVersion: '1.3',
    alpn: 'h2',
    resumption: true,
    earlyData: false,
    transport: 'tcp',
  },
  {
    id: 't13-notix',
    description: 'TLS 1.3 with h2, tickets and session cache off: never resumes',
    software: 'nginx',
    tlsVersion: '1.3',
    alpn: 'h2',
    resumption: false,
    earlyData: false,
    transport: 'tcp',
  },
  {
    id: 't13-0rtt',
    description: 'TLS 1.3 with h2, tickets on, ssl_early_data on',
    software: 'nginx',
    tlsVersion: '1.3',
    alpn: 'h2',
    resumption: true,
    earlyData: true,
    transport: 'tcp',
  },
  {
    id: 'h3',
    description: 'Caddy: TLS 1.3, HTTP/3 over QUIC (and h2 over TCP)',
    software: 'caddy',
    tlsVersion: '1.3',
    alpn: 'h2',
    resumption: true,
    earlyData: true,
    transport: 'quic',
  },
  ...CRYPTO_SERVERS,
];

/** Origins per server: a = page, b = cross-origin with Timing-Allow-Origin and Server-Timing, c = cross-origin without either. */
export const ORIGIN_PREFIXES = ['a', 'b', 'c'] as const;
export type OriginPrefix = (typeof ORIGIN_PREFIXES)[number];

export const LAB_DOMAIN = 'lab.test';
export const hostOf = (prefix: OriginPrefix, id: ServerId) => `${prefix}.${id}.${LAB_DOMAIN}`;

export function serverOfHost(host: string): { server: ServerSpec; prefix: OriginPrefix } | null {
  const m = /^([abc])\.([a-z0-9-]+)\.lab\.test$/.exec(host);
  if (!m) return null;
  const server = SERVERS.find((s) => s.id === m[2]);
  return server ? { server, prefix: m[1] as OriginPrefix } : null;
}
