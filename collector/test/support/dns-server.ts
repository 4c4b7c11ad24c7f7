/**
 * A tiny authoritative DNS server over UDP for tests: answers A, AAAA and TXT questions from a map the
 * test changes as it goes (NXDOMAIN for a name it does not know, an empty answer for a known name without
 * that type). The collector asks it through `DNS_SERVERS=127.0.0.1:PORT`.
 */
import { createSocket } from 'node:dgram';
import { ipv6Bytes } from '../../src/platform/net/address-ranges';

export interface Zone {
  A?: string[];
  AAAA?: string[];
  TXT?: string[];
  /** Never answer (a resolver's timeout). */
  silent?: boolean;
}

export interface DnsServer {
  port: number;
  zones: Map<string, Zone>;
  /** Questions asked, as `TYPE name`. */
  asked: string[];
  close(): Promise<void>;
}

const TYPES: Record<number, keyof Zone> = { 1: 'A', 28: 'AAAA', 16: 'TXT' };

function readName(msg: Buffer, at: number): { name: string; end: number } {
  const labels: string[] = [];
  let i = at;
  while (msg[i]! > 0) {
    labels.push(msg.subarray(i + 1, i + 1 + msg[i]!).toString('latin1'));
    i += 1 + msg[i]!;
  }
  return { name: labels.join('.').toLowerCase(), end: i + 1 };
}

function rdata(type: keyof Zone, value: string): Buffer {
  if (type === 'A') return Buffer.from(value.split('.').map(Number));
  if (type === 'AAAA') return Buffer.from(ipv6Bytes(value));
  const parts: Buffer[] = [];
  const text = Buffer.from(value, 'utf8');
  for (let i = 0; i < text.length || i === 0; i += 255) {
    const chunk = text.subarray(i, i + 255);
    parts.push(Buffer.from([chunk.length]), chunk);
  }
  return Buffer.concat(parts);
}

export async function startDnsServer(zones: Map<string, Zone> = new Map()): Promise<DnsServer> {
  const socket = createSocket('udp4');
  const asked: string[] = [];
  socket.on('message', (msg, from) => {
    if (msg.length < 12) return;
    const { name, end } = readName(msg, 12);
    const qtype = msg.readUInt16BE(end);
    const type = TYPES[qtype];
    asked.push(`${type ?? qtype} ${name}`);
    const zone = zones.get(name);
    if (zone?.silent) return;
    const values = type && zone ? ((zone[type] as string[] | undefined) ?? []) : [];
    const answers = values.map((v) => {
      const data = rdata(type!, v);
      const rr = Buffer.alloc(12);
      rr.writeUInt16BE(0xc00c, 0);
      rr.writeUInt16BE(qtype, 2);
      rr.writeUInt16BE(1, 4);
      rr.writeUInt32BE(1, 6);
      rr.writeUInt16BE(data.length, 10);
      return Buffer.concat([rr, data]);
    });
    const header = Buffer.alloc(12);
    header.writeUInt16BE(msg.readUInt16BE(0), 0);
    // QR, AA, RD copied, RA; rcode 3 (NXDOMAIN) for an unknown name.
    header.writeUInt16BE(0x8400 | (msg.readUInt16BE(2) & 0x0100) | 0x0080 | (zone ? 0 : 3), 2);
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(answers.length, 6);
    socket.send(Buffer.concat([header, msg.subarray(12, end + 4), ...answers]), from.port, from.address);
  });
  await new Promise<void>((r) => socket.bind(0, '127.0.0.1', r));
  return {
    port: socket.address().port,
    zones,
    asked,
    close: () => new Promise((r) => socket.close(() => r())),
  };
}
