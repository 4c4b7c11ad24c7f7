/**
 * The real-extension arm: the built extension (extension/dist/<browser>) in Chromium and Firefox ESR,
 * opted in the way a user does (options page + "I agree"), pointed at the real collector (in-process,
 * embedded store in a temporary folder). Every lab host is registered as a site, so the records the
 * collector stores carry their hostname in `site` — the only per-connection identity a record has (no
 * URL, path, port or address).
 *
 * Join: visits run one at a time and every visit opens one connection per origin (pages.ts), so a
 * record is placed in the visit whose time window holds its `ts` (the entry's start), and joined to
 * the connection the profile's delaying proxy opened to the record's host inside that window (proxy
 * log: host, source address, upstream port), then to the server's log line for that upstream port
 * (truth.ts); for HTTP/3, to the relay's flow whose upstream port Caddy logged for the host. Several records for one host in a window (HTTP/1.1 opens a second connection when the
 * first is busy) pair with as many connections in start order; any other count: not joined, with why.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HandshakeRecord } from '@tlsrum/shared';
import type { RunningLab } from '../lab/lab';
import type { RttProfile } from '../lab/profiles';
import type { LabProbe } from '../lab/site-profiles';
import { serverOfHost, type ServerId } from '../lab/servers';
import type { Browser, MatrixResult } from './run';
import { claimedCryptoOf, cryptoTruthOf } from './crypto-score';
import { claimedOfRecord, classDerivationOf, expectedOf, type Sample } from './samples';
import { connectionId, h3Truth, ProxyLog, readTruth, type ProxyLine, type TruthIndex } from './truth';

export interface ExtensionArmOptions {
  browsers: Browser[];
  profiles: RttProfile[];
  modes: ('cold' | 'warm')[];
  /** Lab servers; h3 gets launches of its own (QUIC to the profile's UDP relay, no SOCKS proxy). */
  servers: ServerId[];
  runs: number;
  /** The lab sites' probe results: stored in the arm's collector, which builds the sites' profiles from them. */
  probes?: readonly LabProbe[];
  /**
   * false: build only when dist/<browser> is missing — inside `pnpm test` the extension project's
   * global setup has built it, and rewriting it would race the extension's own browser tests.
   */
  rebuild?: boolean;
  onProgress?: (line: string) => void;
}

export interface ExtensionVisit {
  browser: Browser;
  profile: RttProfile;
  mode: 'cold' | 'warm';
  server: ServerId;
  prime: boolean;
  start: number;
  end: number;
  /** Entries the extension counted during the visit (measured, opaque, reused, skipped). */
  counted: number;
  error?: string;
}

export interface ExtensionArmResult {
  visits: ExtensionVisit[];
  /** The rows the collector stored (as it returns them: ts is a UTC date-time string). */
  rows: Record<string, unknown>[];
  browserVersions: Partial<Record<Browser, string>>;
}

/**
 * The browser side drives the extension package's test support, so it lives there
 * (extension/test/support/accuracy-arm.ts; that TypeScript project references this one) and is
 * imported by path at run time, which keeps the project graph acyclic.
 */
export async function runExtensionArm(lab: RunningLab, o: ExtensionArmOptions): Promise<ExtensionArmResult> {
  const path = resolve(
    fileURLToPath(new URL('.', import.meta.url)),
    '..',
    '..',
    'extension',
    'test',
    'support',
    'accuracy-arm.ts',
  );
  const mod = (await import(path)) as { runExtensionArm: typeof runExtensionArm };
  return mod.runExtensionArm(lab, o);
}

const epochOf = (ts: unknown) => (typeof ts === 'number' ? ts : Date.parse(`${String(ts).replace(' ', 'T')}Z`));

/** Joins the collector's rows to the visits, the proxy's connections and the servers' log lines. */
export function joinExtensionRows(
  arm: ExtensionArmResult,
  lab: { logs: { dir: string; proxy: string }; crypto?: { chainBytes: Partial<Record<ServerId, number>> } },
  /** The arm the samples are of (the site beacon's records join the same way: beacon-arm.ts). */
  armName: 'extension' | 'beacon' = 'extension',
): Pick<MatrixResult, 'samples' | 'unjoined'> & { failedVisits: number } {
  const truth = readTruth(lab.logs.dir);
  const proxy = new ProxyLog(lab.logs.proxy);
  const samples: Sample[] = [];
  const unjoined: MatrixResult['unjoined'] = [];
  for (const row of arm.rows) {
    const r = row as unknown as HandshakeRecord & { site: string };
    const ts = epochOf(row.ts);
    const host = r.site;
    const where = serverOfHost(host);
    const v = arm.visits.find((x) => !x.error && ts >= x.start && ts <= x.end);
    if (!where || !v) {
      unjoined.push({
        arm: armName,
        server: where?.server.id ?? '?',
        host: host || '(no site)',
        why: where ? 'no visit window holds its ts' : 'not a lab host',
      });
      continue;
    }
    const h3 = where.server.id === 'h3';
    const opened = h3
      ? h3Flows(truth, proxy, v.profile.sourceAddress, host, v.start, v.end)
      : proxy.opened(v.profile.sourceAddress, host, v.start, v.end);
    const siblings = arm.rows
      .filter((x) => x.site === host && epochOf(x.ts) >= v.start && epochOf(x.ts) <= v.end)
      .map((x) => epochOf(x.ts));
    const p = connectionOfRecord(ts, siblings, opened);
    if (typeof p === 'string') {
      unjoined.push({ arm: armName, server: where.server.id, host, why: p });
      continue;
    }
    const logged = truth.lookup(where.server.id, { addr: p.source, port: p.upstreamLocalPort!, conn: null }, p.t);
    const t = logged && h3Truth(logged, p);
    if (!t) {
      unjoined.push({
        arm: armName,
        server: where.server.id,
        host,
        why: `no server log line for ${p.source}:${p.upstreamLocalPort}`,
      });
      continue;
    }
    samples.push({
      arm: armName,
      browser: v.browser,
      mode: v.mode,
      prime: v.prime,
      profile: v.profile.name,
      rttMs: v.profile.rttMs,
      server: where.server.id,
      host,
      entryType: r.entryType,
      connection: connectionId(t),
      truth: t,
      expected: expectedOf(t, v.browser),
      claimed: claimedOfRecord(r, classDerivationOf(r)),
      proxy: p,
      cryptoTruth: cryptoTruthOf(where.server, t, lab.crypto?.chainBytes[where.server.id] ?? null),
      cryptoClaimed: claimedCryptoOf(r),
    });
  }
  return { samples, unjoined, failedVisits: arm.visits.filter((v) => v.error).length };
}

/**
 * The QUIC flows a profile's UDP relay carried for a host in a visit window. The relay's log has no
 * host (QUIC hides it from a relay that does not decrypt), so the host comes from Caddy's access log:
 * the client ports it saw for the host's requests, each the upstream port of one relay flow.
 */
function h3Flows(
  truth: TruthIndex,
  proxy: ProxyLog,
  source: string,
  host: string,
  fromMs: number,
  toMs: number,
): ProxyLine[] {
  return truth.h3Connections(source, host, fromMs, toMs).flatMap((t) => proxy.lookup('udp', source, t.port, t.t) ?? []);
}

/**
 * How far apart a record's `ts` (the browser's connectStart, epoch ms) and the proxy's accept of the
 * CONNECT (its wall clock) may be, and how much closer the chosen connection must be than any other.
 */
export const START_MATCH_MS = 25;

/**
 * The proxy connection a record measured, among those the profile's proxy opened to the record's host in
 * its visit window (`siblings`: the ts of every record for that host in the window, this one included).
 * HTTP/1.1 may open a second connection to the page's host while the first is busy: with as many records
 * as connections they pair in start order. The proxy may also see a connection no record measured (seen
 * only while the delay queue could stall: a request the proxy held was re-sent on a new connection 1 s
 * later): then a record
 * takes the connection that started nearest its own start, when that is within START_MATCH_MS, every
 * other connection is START_MATCH_MS further, and no sibling record is nearer to it. Else: why not.
 */
export function connectionOfRecord<P extends { t: number }>(
  ts: number,
  siblings: readonly number[],
  opened: readonly P[],
): P | string {
  const byStart = [...opened].sort((a, b) => a.t - b.t);
  const records = [...siblings].sort((a, b) => a - b);
  if (byStart.length === records.length) return byStart[records.indexOf(ts)]!;
  const reason = `${byStart.length} proxy connections to the host in the visit window for ${records.length} record(s), none clearly nearest in start time`;
  const [best, next] = [...byStart].sort((a, b) => Math.abs(a.t - ts) - Math.abs(b.t - ts));
  if (!best || Math.abs(best.t - ts) > START_MATCH_MS) return reason;
  if (next && Math.abs(next.t - ts) - Math.abs(best.t - ts) < START_MATCH_MS) return reason;
  const rival = records.some((o) => o !== ts && Math.abs(best.t - o) <= Math.abs(best.t - ts));
  return rival ? reason : best;
}
