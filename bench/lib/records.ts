/**
 * Realistic handshake records for benchmarks: one client's batch shares its browser, OS, token and
 * mostly one site, as the extension's batches do; timings follow the path's RTT and the handshake class.
 * Seeded, so every run measures the same data.
 */
import type { HandshakeBatch, HandshakeRecord } from '@tlsrum/shared';
import { roundPhase } from '@tlsrum/shared';

export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    // mulberry32
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(r: () => number, items: readonly T[]): T => items[Math.floor(r() * items.length)]!;
const hex = (r: () => number, n: number) => Array.from({ length: n }, () => Math.floor(r() * 16).toString(16)).join('');

export function uuid(r: () => number): string {
  return `${hex(r, 8)}-${hex(r, 4)}-4${hex(r, 3)}-a${hex(r, 3)}-${hex(r, 12)}`;
}

const SITES = ['www.example.com', 'shop.example.com', 'news.example.org', null, null] as const;
const CLIENTS = [
  { browser: 'chrome', browserMajor: 156, os: 'windows' },
  { browser: 'chrome', browserMajor: 155, os: 'android' },
  { browser: 'firefox', browserMajor: 153, os: 'linux' },
  { browser: 'edge', browserMajor: 156, os: 'windows' },
  { browser: 'chrome', browserMajor: 156, os: 'macos' },
] as const;

export function makeBenchBatch(r: () => number, size: number, now = Date.now()): HandshakeBatch {
  const client = pick(r, CLIENTS);
  const clientToken = hex(r, 22);
  const rtt = 10 + r() * 180;
  const site = pick(r, SITES);
  let ts = now - Math.floor(r() * 600_000);
  const records: HandshakeRecord[] = Array.from({ length: size }, () => {
    ts += Math.floor(r() * 4000);
    const p = r();
    const protocol = p < 0.25 ? 'h3' : p < 0.85 ? 'h2' : 'http/1.1';
    const c = r();
    const handshakeClass =
      protocol === 'h3' ? (c < 0.15 ? '0rtt' : '1rtt') : c < 0.2 ? 'full-2rtt' : c < 0.95 ? '1rtt' : 'unknown';
    const tcp = protocol === 'h3' ? 0 : roundPhase(rtt * (1 + r() * 0.2));
    const rounds = handshakeClass === 'full-2rtt' ? 2 : handshakeClass === '0rtt' ? 1 : 1;
    const tls = roundPhase(rtt * rounds * (1 + r() * 0.3) + r() * 3);
    const isFirefox = client.browser === 'firefox';
    const tlsVersion =
      protocol === 'h3' || handshakeClass === '0rtt'
        ? '1.3'
        : handshakeClass === 'full-2rtt'
          ? '1.2'
          : isFirefox
            ? '1.3'
            : null;
    const record: HandshakeRecord = {
      ts,
      site,
      entryType: r() < 0.15 ? 'navigation' : 'resource',
      protocol,
      transport: protocol === 'h3' ? 'quic' : 'tcp',
      tlsVersion,
      tlsVersionSource:
        tlsVersion === null
          ? 'unknown'
          : isFirefox
            ? 'observed'
            : protocol === 'h3' || handshakeClass === '0rtt'
              ? 'implied'
              : 'inferred',
      resumed: handshakeClass === '0rtt' ? true : handshakeClass === 'full-2rtt' ? false : null,
      resumedSource: handshakeClass === '0rtt' ? 'implied' : handshakeClass === 'full-2rtt' ? 'inferred' : 'unknown',
      handshakeClass,
      dns: r() < 0.6 ? 0 : roundPhase(r() * 40),
      tcp,
      tls,
      connect: roundPhase(tcp + tls),
      ttfb: roundPhase(rtt + r() * 80),
      browser: client.browser,
      browserMajor: client.browserMajor,
      os: client.os,
      effectiveType: isFirefox ? null : '4g',
      rttHint: isFirefox ? null : Math.round(rtt / 25) * 25,
      source: 'rum',
      clientToken,
    };
    if (isFirefox)
      Object.assign(record, {
        cipher: 'TLS_AES_128_GCM_SHA256',
        group: 'X25519MLKEM768',
        signatureScheme: 'ecdsa_secp256r1_sha256',
        certChainLength: 3,
      });
    return record;
  });
  return { v: 1, batchId: uuid(r), sentAt: now, agent: { name: 'tlsrum-extension', version: '0.1.0' }, records };
}
