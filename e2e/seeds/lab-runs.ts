/**
 * The lab runs behind the seeds report: real Chromium (synthetic runner, NetLog truth for version and
 * resumption) against the lab's nginx and Caddy through delaying proxies at RTTs chosen to match the
 * seeds' conditions. Each run keeps, per visit, the page's own connection (the navigation entry): one
 * role, so full and resumed handshakes of the same server compare like with like.
 */
import type { RunningLab } from '../lab/lab';
import { profileByName, type RttProfile } from '../lab/profiles';
import type { ServerId } from '../lab/servers';
import { labPath } from '../lab/synth-options';
import { runSynthetic, type ConnectionObservation, type VisitResult } from '@tlsrum/synth';

/** RTT profiles for the seeds' conditions, beside the lab's own (their source addresses are unused by those). */
export const SEED_PROFILES = {
  lan: profileByName('local'),
  ping: { name: 'ping-11.6', rttMs: 11.6, sourceAddress: '127.0.0.7', country: 'KR' },
  regional: { name: 'regional-40', rttMs: 40, sourceAddress: '127.0.0.8', country: 'NL' },
  far: profileByName('intercontinental'),
} as const satisfies Record<string, RttProfile>;

export interface Handshake {
  server: ServerId;
  profile: string;
  mode: 'cold' | 'warm';
  prime: boolean;
  /** From the browser's NetLog (TCP) or the order of events (QUIC 0-RTT); null when it could not tell. */
  resumed: boolean | null;
  zeroRtt: boolean;
  /** connectEnd − secureConnectionStart (QUIC: the whole handshake). */
  tls: number;
  /** connectEnd − connectStart: TCP + TLS, or the QUIC handshake. */
  connect: number;
  /** responseStart − connectStart: set-up and the first request's round trip. */
  firstByte: number;
  tlsVersion: string | null;
}

export interface RunSpec {
  server: ServerId;
  profile: RttProfile;
  mode: 'cold' | 'warm';
  runs: number;
  /** Another page than the server's own (e.g. a page written by the seeds run). */
  url?: string;
  clientToken?: string;
}

function handshakeOf(spec: RunSpec, v: VisitResult, c: ConnectionObservation): Handshake {
  const t = c.timing;
  const zeroRtt = t.requestStart > 0 && t.requestStart < t.connectEnd;
  return {
    server: spec.server,
    profile: spec.profile.name,
    mode: spec.mode,
    prime: v.prime,
    resumed: c.record?.resumedSource === 'observed' ? c.record.resumed : zeroRtt ? true : null,
    zeroRtt,
    tls: t.connectEnd - t.secureConnectionStart,
    connect: t.connectEnd - t.connectStart,
    firstByte: t.responseStart - t.connectStart,
    tlsVersion: c.record?.tlsVersion ?? null,
  };
}

/** Visits one server through one profile; returns every visit and the page connection's handshake per visit. */
export async function runVisits(
  lab: RunningLab,
  spec: RunSpec,
): Promise<{ visits: VisitResult[]; handshakes: Handshake[]; browserVersion: string }> {
  const result = await runSynthetic({
    urls: [spec.url ?? lab.urls[spec.server]],
    browser: 'chromium',
    mode: spec.mode,
    runs: spec.runs,
    ...labPath(lab, spec.profile, spec.server === 'h3' ? 'quic' : 'tcp'),
    ...(spec.clientToken ? { clientToken: spec.clientToken } : {}),
    visitTimeoutMs: 20_000,
  });
  const failed = result.visits.filter((v) => !v.ok);
  if (failed.length)
    throw new Error(
      `${spec.server} ${spec.profile.name} ${spec.mode}: ${failed.length} visit(s) failed: ${failed[0]!.error}`,
    );
  const handshakes = result.visits.flatMap((v) =>
    v.connections.filter((c) => c.kind === 'new' && c.entryType === 'navigation').map((c) => handshakeOf(spec, v, c)),
  );
  return { visits: result.visits, handshakes, browserVersion: result.browser.version };
}

export const median = (xs: readonly number[]): number | null => {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
