/**
 * Which TLS versions the server accepts: one connection per version with minVersion = maxVersion = it.
 * TLS 1.0/1.1 need `DEFAULT@SECLEVEL=0` (OpenSSL 3 refuses their SHA-1 based handshakes at its default level).
 * A handshake the server refuses is a fact (`false`); only a connection that cannot be made is unknown (`null`).
 *
 * These connections trust nothing (`ca: []`) so the chain read from them is the one the server sent (cert.ts),
 * and offer no ALPN (the request that waits for TLS 1.3 tickets speaks HTTP/1.1).
 */
import type { SecureVersion } from 'node:tls';
import { PROBE_TLS_VERSIONS, type ProbeTlsVersion } from '@tlsrum/shared';
import type { StageError } from './connect';
import { connectTls, type Connection, type Target } from './connect';
import { sentChain } from './cert';

export const NODE_TLS: Record<ProbeTlsVersion, SecureVersion> = {
  '1.0': 'TLSv1',
  '1.1': 'TLSv1.1',
  '1.2': 'TLSv1.2',
  '1.3': 'TLSv1.3',
};

export interface VersionTry {
  version: ProbeTlsVersion;
  accepted: boolean | null;
  /** Certificates sent in this handshake, leaf first (empty unless accepted). */
  chain: Buffer[];
  /** The session the server issued (TLS 1.3: its first ticket), for the resumption try. */
  session: Buffer | null;
  error: string | null;
}

export function versionOptions(version: ProbeTlsVersion) {
  return {
    minVersion: NODE_TLS[version],
    maxVersion: NODE_TLS[version],
    ...(version === '1.0' || version === '1.1' ? { ciphers: 'DEFAULT@SECLEVEL=0' } : {}),
    ca: [] as string[],
  };
}

export async function tryVersion(
  target: Target,
  url: URL,
  version: ProbeTlsVersion,
  timeoutMs: number,
): Promise<VersionTry> {
  let conn: Connection;
  try {
    conn = await connectTls(target, versionOptions(version), timeoutMs);
  } catch (err) {
    const e = err as StageError;
    if (e.stage === 'tls' && e.code !== 'TIMEOUT')
      return { version, accepted: false, chain: [], session: null, error: null };
    return { version, accepted: null, chain: [], session: null, error: `TLS ${version} try, ${e.stage}: ${e.message}` };
  }
  try {
    const chain = sentChain(conn.socket);
    const session = version === '1.2' || version === '1.3' ? await settleSession(conn, url, version, timeoutMs) : null;
    return { version, accepted: true, chain, session, error: null };
  } finally {
    conn.socket.destroy();
  }
}

/**
 * TLS 1.3 tickets arrive after the handshake (NewSessionTicket), before any response: send one request and
 * wait for a ticket, the first response byte or the end of the connection. TLS 1.2 sessions exist at once
 * (a ticket from the handshake, or a session id).
 */
async function settleSession(
  conn: Connection,
  url: URL,
  version: ProbeTlsVersion,
  timeoutMs: number,
): Promise<Buffer | null> {
  const { socket } = conn;
  if (version === '1.3' && conn.sessions.length === 0) {
    await new Promise<void>((res) => {
      const timer = setTimeout(done, timeoutMs);
      function done() {
        clearTimeout(timer);
        res();
      }
      socket.once('session', done);
      socket.once('data', () => setImmediate(done));
      socket.once('end', done);
      socket.once('close', done);
      socket.write(`HEAD ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nConnection: close\r\n\r\n`);
    });
  }
  return conn.sessions[0] ?? (version === '1.2' ? (socket.getSession() ?? null) : null);
}

export const tryAllVersions = (target: Target, url: URL, timeoutMs: number) =>
  Promise.all(PROBE_TLS_VERSIONS.map((v) => tryVersion(target, url, v, timeoutMs)));
