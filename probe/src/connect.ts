/**
 * One cold connection, timed phase by phase the way curl reports them: name lookup, TCP connect, TLS
 * handshake. Each phase has its own timeout; a failure names its stage so the probe can say what failed.
 */
import { lookup } from 'node:dns/promises';
import { isIP, connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect, type ConnectionOptions, type TLSSocket } from 'node:tls';

export type Stage = 'dns' | 'tcp' | 'tls' | 'http';

export class StageError extends Error {
  constructor(
    readonly stage: Stage,
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

export interface Target {
  host: string;
  port: number;
  /** The address given with --resolve (no lookup then). */
  address?: string;
}

export interface Connection {
  socket: TLSSocket;
  address: string;
  /** Phase durations in ms. */
  dns: number;
  tcp: number;
  tls: number;
  /** The stapled OCSP response, when one was requested and sent. */
  ocsp: Buffer | null;
  /** Every session (TLS 1.3: every ticket) the server has issued so far, in order. */
  sessions: Buffer[];
}

const now = () => performance.now();

/** Races `p` against a timer; on timeout calls `onTimeout` (which should release resources) and rejects. */
export function withTimeout<T>(p: Promise<T>, ms: number, stage: Stage, onTimeout: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, rej) => {
    timer = setTimeout(() => {
      onTimeout();
      rej(new StageError(stage, `no answer within ${ms} ms`, 'TIMEOUT'));
    }, ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

async function resolve(target: Target, timeoutMs: number): Promise<{ address: string; ms: number }> {
  if (target.address) return { address: target.address, ms: 0 };
  if (isIP(target.host)) return { address: target.host, ms: 0 };
  const t0 = now();
  try {
    const r = await withTimeout(lookup(target.host), timeoutMs, 'dns', () => {});
    return { address: r.address, ms: now() - t0 };
  } catch (err) {
    if (err instanceof StageError) throw err;
    const e = err as NodeJS.ErrnoException;
    throw new StageError('dns', `cannot resolve ${target.host} (${e.code ?? e.message})`, e.code);
  }
}

function tcpConnect(address: string, port: number, timeoutMs: number): Promise<Socket> {
  const socket = netConnect({ host: address, port });
  const done = new Promise<Socket>((res, rej) => {
    socket.once('connect', () => res(socket));
    socket.once('error', (err: NodeJS.ErrnoException) =>
      rej(new StageError('tcp', `cannot connect to ${address}:${port} (${err.code ?? err.message})`, err.code)),
    );
  });
  return withTimeout(done, timeoutMs, 'tcp', () => socket.destroy());
}

/** Handshake facts are read from the socket afterwards; certificate trust is never enforced here (see probe.ts). */
export async function connectTls(
  target: Target,
  tlsOptions: ConnectionOptions,
  timeoutMs: number,
): Promise<Connection> {
  const { address, ms: dns } = await resolve(target, timeoutMs);
  const t1 = now();
  const raw = await tcpConnect(address, target.port, timeoutMs);
  const tcp = now() - t1;
  const t2 = now();
  const socket = tlsConnect({
    ...tlsOptions,
    socket: raw,
    servername: isIP(target.host) ? undefined : target.host,
    rejectUnauthorized: false,
  });
  let ocsp: Buffer | null = null;
  const sessions: Buffer[] = [];
  // Emitted with null when stapling was requested but the server sent nothing.
  socket.on('OCSPResponse', (r: Buffer | null) => (ocsp = r && r.length > 0 ? r : null));
  socket.on('session', (s: Buffer) => sessions.push(s));
  const handshake = new Promise<void>((res, rej) => {
    socket.once('secureConnect', () => res());
    socket.once('error', (err: NodeJS.ErrnoException) => rej(new StageError('tls', tlsReason(err), err.code)));
    socket.once('close', () =>
      rej(new StageError('tls', 'the server closed the connection during the handshake', 'ECONNRESET')),
    );
  });
  try {
    await withTimeout(handshake, timeoutMs, 'tls', () => socket.destroy());
  } catch (err) {
    socket.destroy();
    raw.destroy();
    throw err;
  }
  // Later errors (a reset after the handshake) must not crash the process: whoever reads the socket handles them.
  socket.on('error', () => {});
  return { socket, address, dns, tcp, tls: now() - t2, ocsp, sessions };
}

function tlsReason(err: NodeJS.ErrnoException): string {
  const code = err.code ?? '';
  if (/PROTOCOL_VERSION|UNSUPPORTED_PROTOCOL|WRONG_VERSION_NUMBER|NO_PROTOCOLS_AVAILABLE/.test(code))
    return `the server refused this TLS version (${code})`;
  if (/HANDSHAKE_FAILURE|NO_SHARED_CIPHER|NO_CIPHERS/.test(code))
    return `no cipher or group in common with the server (${code})`;
  return `handshake failed (${code || err.message})`;
}
