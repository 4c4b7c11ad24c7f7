/**
 * Chromium NetLog (`--log-net-log=FILE --net-log-capture-mode=Default`) → per socket, what its TLS
 * handshake negotiated. Verified on Chromium 156: a TCP socket's source (type SOCKET) logs
 * `TCP_CONNECT` (end: local_address, remote_address), `SSL_CERTIFICATES_RECEIVED` (certificates[]) and
 * `SSL_CONNECT` (end: version, cipher_suite, key_exchange_group, peer_signature_algorithm, next_proto,
 * is_resumed). CDP's `Network.Response.connectionId` is that source's id, which is how a response is
 * joined to its handshake.
 *
 * The file is only complete once the browser has exited (it writes the closing `]}` then); a browser
 * that crashed leaves it open, so the parser also reads a truncated file line by line.
 */
import { readFileSync } from 'node:fs';
import type { NetLogConnection } from './types';

interface RawEvent {
  time?: string;
  type: number;
  phase: number;
  source: { id: number; type: number };
  params?: Record<string, unknown>;
}

interface Constants {
  logEventTypes: Record<string, number>;
  logEventPhase: Record<string, number>;
  logSourceType: Record<string, number>;
}

export function readNetLog(path: string): Map<number, NetLogConnection> {
  return parseNetLog(readFileSync(path, 'utf8'));
}

export function parseNetLog(text: string): Map<number, NetLogConnection> {
  const { constants, events } = splitNetLog(text);
  const byName = (table: Record<string, number>) => new Map(Object.entries(table).map(([k, v]) => [v, k]));
  const eventName = byName(constants.logEventTypes);
  const phaseName = byName(constants.logEventPhase);
  const sourceName = byName(constants.logSourceType);

  const sockets = new Map<number, NetLogConnection>();
  const socketOf = (id: number, transport: 'tcp' | 'quic') => {
    let s = sockets.get(id);
    if (!s) {
      s = {
        socketId: id,
        transport,
        isResumed: null,
        version: null,
        cipherSuite: null,
        keyExchangeGroup: null,
        peerSignatureAlgorithm: null,
        nextProto: null,
        certificates: null,
        certificateDers: null,
        ocspStapled: null,
        ech: null,
        localAddress: null,
        remoteAddress: null,
      };
      sockets.set(id, s);
    }
    return s;
  };

  for (const e of events) {
    const name = eventName.get(e.type);
    const source = sourceName.get(e.source.type);
    const phase = phaseName.get(e.phase);
    const p = e.params ?? {};
    if (source === 'SOCKET') {
      if (name === 'TCP_CONNECT' && phase === 'PHASE_END') {
        const s = socketOf(e.source.id, 'tcp');
        s.localAddress = str(p.local_address);
        s.remoteAddress = str(p.remote_address);
      } else if (name === 'SSL_CERTIFICATES_RECEIVED' && Array.isArray(p.certificates)) {
        const s = socketOf(e.source.id, 'tcp');
        s.certificates = p.certificates.length;
        s.certificateDers = p.certificates.map((pem) => derOfPem(String(pem)));
      } else if (name === 'SSL_HANDSHAKE_MESSAGE_RECEIVED' && typeof p.bytes === 'string') {
        const stapled = stapledIn(p.type, Buffer.from(p.bytes, 'base64'));
        const s = socketOf(e.source.id, 'tcp');
        if (stapled !== null) s.ocspStapled = (s.ocspStapled ?? false) || stapled;
      } else if (name === 'SSL_CONNECT' && phase === 'PHASE_END' && p.net_error === undefined) {
        const s = socketOf(e.source.id, 'tcp');
        s.isResumed = typeof p.is_resumed === 'boolean' ? p.is_resumed : null;
        s.version = str(p.version);
        s.cipherSuite = num(p.cipher_suite);
        s.keyExchangeGroup = num(p.key_exchange_group);
        s.peerSignatureAlgorithm = num(p.peer_signature_algorithm);
        s.nextProto = str(p.next_proto);
        if (typeof p.encrypted_client_hello === 'boolean') s.ech = p.encrypted_client_hello;
        // A full handshake's certificate message was logged before: no stapled response in it means none.
        if (s.isResumed === false && s.certificates !== null) s.ocspStapled ??= false;
      }
    } else if (source === 'QUIC_SESSION') {
      quicEvent(socketOf, e.source.id, name, phase, p);
    }
  }
  return sockets;
}

/**
 * QUIC sessions (source type QUIC_SESSION; CDP's connectionId of an h3 response is its id). QUIC is TLS
 * 1.3 by definition (RFC 9001). The Default capture mode logs no is_resumed for QUIC, but it logs
 * `QUIC_SESSION_ZERO_RTT_STATE` {state: NotAttempted | AttemptedAndSucceeded | AttemptedAndRejected}:
 * accepted early data proves a resumed session; anything else leaves resumption unknown (a session
 * can resume without 0-RTT, and a rejected 0-RTT attempt may still resume).
 */
function quicEvent(
  socketOf: (id: number, t: 'tcp' | 'quic') => NetLogConnection,
  id: number,
  name: string | undefined,
  phase: string | undefined,
  p: Record<string, unknown>,
): void {
  if (name === 'QUIC_SESSION' && phase === 'PHASE_BEGIN') {
    const s = socketOf(id, 'quic');
    s.version = 'TLS 1.3';
    s.nextProto = 'h3';
  } else if (name === 'QUIC_SESSION_ZERO_RTT_STATE' && typeof p.state === 'string') {
    const s = socketOf(id, 'quic');
    s.earlyDataAccepted = p.state === 'AttemptedAndSucceeded';
    if (s.earlyDataAccepted) s.isResumed = true;
  }
}

function splitNetLog(text: string): { constants: Constants; events: RawEvent[] } {
  try {
    const whole = JSON.parse(text) as { constants: Constants; events: RawEvent[] };
    return { constants: whole.constants, events: whole.events ?? [] };
  } catch {
    // Truncated: the first line is `{"constants":{…},`, then `"events": [`, then one event per line.
    const lines = text.split('\n');
    const first = lines[0]?.replace(/,\s*$/, '');
    if (!first) throw new Error('NetLog is empty');
    const constants = (JSON.parse(`${first}}`) as { constants: Constants }).constants;
    const events: RawEvent[] = [];
    for (const line of lines.slice(1)) {
      const l = line.trim().replace(/,$/, '');
      if (!l.startsWith('{')) continue;
      try {
        events.push(JSON.parse(l) as RawEvent);
      } catch {
        // The last line of a crashed browser's log may be cut in half.
      }
    }
    return { constants, events };
  }
}

/** Base64 DER of a PEM certificate as the NetLog writes it. */
function derOfPem(pem: string): string {
  return pem.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '');
}

/**
 * Whether a received handshake message carries a stapled OCSP response: TLS 1.2's CertificateStatus
 * (type 22), or TLS 1.3's Certificate (type 11) whose leaf entry has a status_request extension (5).
 * null: neither message. The NetLog's Default capture mode logs every handshake message's bytes.
 */
export function stapledIn(type: unknown, b: Buffer): boolean | null {
  if (type === 22) return true;
  if (type !== 11 || b.length < 4 || b[0] !== 11) return null;
  // Header (type + 3-byte length), then TLS 1.3: request context, 3-byte list length, entries of
  // 3-byte certificate + 2-byte extensions. TLS 1.2's Certificate has no context and no extensions.
  const body = b.subarray(4);
  const ctx = body[0]!;
  const list = body.subarray(1 + ctx);
  if (list.length < 3) return null;
  const listLen = list.readUIntBE(0, 3);
  // In TLS 1.2 the first bytes are the list length straight away: the sizes then do not add up.
  if (listLen !== list.length - 3) return null;
  const certLen = list.readUIntBE(3, 3);
  const extAt = 6 + certLen;
  if (extAt + 2 > list.length) return null;
  const extLen = list.readUInt16BE(extAt);
  for (let i = extAt + 2; i + 4 <= extAt + 2 + extLen;) {
    const extType = list.readUInt16BE(i);
    if (extType === 5) return true;
    i += 4 + list.readUInt16BE(i + 2);
  }
  return false;
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' ? v : null);
