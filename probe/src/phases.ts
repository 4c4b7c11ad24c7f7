/**
 * The cold runs: each a new connection as a modern client makes it (default groups — X25519MLKEM768 first
 * where OpenSSL offers it —, ALPN h2 + http/1.1, OCSP stapling requested, no session offered), timed phase by
 * phase, then one GET for the time to first byte. The first run that completes also gives the negotiated
 * parameters, the stapled OCSP response, certificate trust and Alt-Svc.
 */
import { createSecureContext, rootCertificates, type SecureContext, type TLSSocket } from 'node:tls';
import type { ProbeResult, ProbeTlsVersion } from '@tlsrum/shared';
import { connectTls, type StageError, type Target } from './connect';
import { httpRequest } from './http-request';

export interface RunSample {
  dns: number;
  tcp: number;
  tls: number;
  ttfb: number | null;
}

export interface ModernFacts {
  negotiated: ProbeResult['tls']['negotiated'];
  ocspStapled: boolean;
  /** null when trusted; else OpenSSL's / Node's reason code (CERT_HAS_EXPIRED, …). */
  trustError: string | null;
  altSvc: string | null;
}

export interface ColdRuns {
  samples: RunSample[];
  modern: ModernFacts | null;
  errors: string[];
}

const VERSION_OF: Record<string, ProbeTlsVersion> = {
  TLSv1: '1.0',
  'TLSv1.1': '1.1',
  'TLSv1.2': '1.2',
  'TLSv1.3': '1.3',
};
const GROUP_NAMES: Record<string, string> = { prime256v1: 'P-256', secp384r1: 'P-384', secp521r1: 'P-521' };

export function negotiatedOf(socket: TLSSocket): ProbeResult['tls']['negotiated'] {
  const key = socket.getEphemeralKeyInfo() as { name?: string } | null;
  const name = key && typeof key === 'object' && key.name ? key.name : null;
  return {
    version: VERSION_OF[socket.getProtocol() ?? ''] ?? null,
    cipher: socket.getCipher()?.name ?? null,
    group: name ? (GROUP_NAMES[name] ?? name) : null,
    alpn: socket.alpnProtocol || null,
  };
}

/**
 * One context per set of extra CAs: building it parses the whole root store (≈ 150 certificates), which
 * cost more CPU per probe connection than the handshake itself and slowed ingest while a cycle ran.
 * Sharing the context shares no session: a client offers one only when given it explicitly.
 */
const contexts = new Map<string, SecureContext>();
function trustingAlso(extraCa: string[]): SecureContext {
  const key = extraCa.join('\n');
  let context = contexts.get(key);
  if (!context) {
    context = createSecureContext({ ca: [...rootCertificates, ...extraCa] });
    if (contexts.size >= 16) contexts.clear();
    contexts.set(key, context);
  }
  return context;
}

export async function coldRuns(
  target: Target,
  url: URL,
  runs: number,
  extraCa: string[],
  timeoutMs: number,
): Promise<ColdRuns> {
  const samples: RunSample[] = [];
  const errors = new Set<string>();
  let modern: ModernFacts | null = null;
  const options = {
    ALPNProtocols: ['h2', 'http/1.1'],
    requestOCSP: true,
    ...(extraCa.length ? { secureContext: trustingAlso(extraCa) } : {}),
  };
  // One after the other: parallel runs would measure each other's load, not the server.
  for (let i = 0; i < runs; i++) {
    let conn;
    try {
      conn = await connectTls(target, options, timeoutMs);
    } catch (err) {
      const e = err as StageError;
      errors.add(`${e.stage}: ${e.message}`);
      continue;
    }
    const facts: ModernFacts = {
      negotiated: negotiatedOf(conn.socket),
      ocspStapled: conn.ocsp !== null,
      trustError: conn.socket.authorized ? null : String(conn.socket.authorizationError ?? 'UNKNOWN'),
      altSvc: null,
    };
    let ttfb: number | null = null;
    try {
      const answer = await httpRequest(conn.socket, url, timeoutMs);
      ttfb = answer.ttfb;
      facts.altSvc = answer.altSvc;
    } catch (err) {
      const e = err as StageError;
      errors.add(`${e.stage}: ${e.message}`);
    } finally {
      conn.socket.destroy();
    }
    modern ??= facts;
    samples.push({ dns: conn.dns, tcp: conn.tcp, tls: conn.tls, ttfb });
  }
  return { samples, modern, errors: [...errors] };
}

export function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  const v = s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
  return Math.round(v * 100) / 100;
}
