/**
 * Generated handshake rows for alert and what-if tests, written straight into `handshakes` (the
 * baseline a week back is older than ingest accepts). Seeded, so each test sees the same data.
 */
import type { HandshakeRecord } from '@tlsrum/shared';
import type { ClickHouseClient } from '@clickhouse/client';
import type { HandshakeRow } from '../../src/ingest/columns';
import { toRow } from '../../src/ingest/to-row';

export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0; // mulberry32
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Traffic {
  site: string;
  country?: string;
  from: number;
  to: number;
  records: number;
  clients: number;
  /** Path RTT, ms (TCP connect ≈ 1 RTT); each record jitters around it. */
  rtt: number;
  /** Share of connections with a known resumption state that resumed. */
  resumedShare: number;
  /** TLS phase of a full and of a resumed handshake, ms (before jitter). */
  fullTls: number;
  resumedTls: number;
  tls13Share: number;
  h3Share: number;
  /** Share of connections with a DNS lookup (of rtt / 2 ms); default 0.5. */
  dnsShare?: number;
  /** Multiplicative jitter half-width: each phase × (1 ± jitter). */
  jitter?: number;
  seed: number;
}

const round = (x: number) => Math.round(x * 10) / 10;

export function generate(t: Traffic): HandshakeRow[] {
  const r = rng(t.seed);
  const j = t.jitter ?? 0.25;
  const noisy = (x: number) => round(Math.max(0, x * (1 - j + 2 * j * r())));
  const rows: HandshakeRow[] = [];
  for (let i = 0; i < t.records; i++) {
    const h3 = r() < t.h3Share;
    const tls13 = h3 || r() < t.tls13Share;
    const resumed = r() < t.resumedShare;
    const tcp = h3 ? 0 : noisy(t.rtt);
    const tls = noisy(resumed ? t.resumedTls : t.fullTls);
    const rec: HandshakeRecord = {
      ts: Math.floor(t.from + r() * (t.to - t.from)),
      site: t.site,
      entryType: r() < 0.2 ? 'navigation' : 'resource',
      protocol: h3 ? 'h3' : 'h2',
      transport: h3 ? 'quic' : 'tcp',
      tlsVersion: tls13 ? '1.3' : '1.2',
      tlsVersionSource: 'observed',
      resumed,
      resumedSource: 'server-timing',
      handshakeClass: resumed || tls13 ? '1rtt' : 'full-2rtt',
      dns: r() < (t.dnsShare ?? 0.5) ? noisy(t.rtt / 2) : 0,
      tcp,
      tls,
      connect: round(tcp + tls),
      ttfb: noisy(t.rtt * 1.5),
      browser: 'chrome',
      browserMajor: 156,
      os: 'linux',
      effectiveType: '4g',
      rttHint: null,
      source: 'rum',
      clientToken: `client-${t.seed}-${i % t.clients}`,
    };
    rows.push(
      toRow(rec, {
        batch: { batchId: '00000000-0000-4000-8000-000000000000', agent: { name: 'test', version: '1' } },
        country: t.country ?? 'DE',
        receivedAt: rec.ts,
        isRegisteredSite: () => true,
      }),
    );
    // Traffic shaped for the figures under test (a class per record by share, not by its phases): counted
    // as plausible, as if the plausibility rules were not there (they have tests of their own).
    rows[rows.length - 1]!.implausible = 0;
  }
  return rows;
}

export async function insertRows(client: ClickHouseClient, rows: HandshakeRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 10_000) {
    await client.insert({ table: 'handshakes', values: rows.slice(i, i + 10_000), format: 'JSONEachRow' });
  }
}
