/**
 * Scores samples against the ground truth: confusion matrices, accuracy per evidence source, unknown
 * share by reason, and the TLS phase's error against the injected round trips (raw and calibrated).
 */
import { quicStalled } from './quic-stall';
import type { Arm, Sample } from './samples';

export const STRONG_SOURCES = ['observed', 'implied', 'server-timing'] as const;
export type Field = 'tlsVersion' | 'resumed' | 'handshakeClass';

const str = (v: unknown) => (v === null || v === undefined ? 'null' : String(v));

export interface Confusion {
  rows: string[];
  cols: string[];
  cells: Record<string, Record<string, number>>;
}

export function confusion(samples: readonly Sample[], field: Field): Confusion {
  const cells: Record<string, Record<string, number>> = {};
  const rows = new Set<string>();
  const cols = new Set<string>();
  for (const s of samples) {
    const t = str(s.expected[field]);
    const c = str(s.claimed[field]);
    rows.add(t);
    cols.add(c);
    cells[t] ??= {};
    cells[t]![c] = (cells[t]![c] ?? 0) + 1;
  }
  return { rows: [...rows].sort(), cols: [...cols].sort(), cells };
}

/** How a sample claims a field: tlsVersion/resumed carry a source; the class is read from how it was made. */
export function claimSource(s: Sample, field: Field): string {
  if (field === 'tlsVersion') return s.claimed.tlsVersionSource;
  if (field === 'resumed') return s.claimed.resumedSource;
  const c = s.claimed.handshakeClass;
  if (c === 'unknown') return 'unknown';
  // 0-RTT is seen directly (the request left before the connection was up); QUIC's 1 RTT is by design.
  if (c === '0rtt') return 'observed';
  if (s.claimed.protocol === 'h3') return 'implied';
  return 'timing';
}

export interface Accuracy {
  n: number;
  correct: number;
  accuracy: number | null;
}

const acc = (n: number, correct: number): Accuracy => ({ n, correct, accuracy: n ? correct / n : null });

/** Accuracy of a field over the samples whose claim source is in `sources` (and whose truth is known). */
export function accuracy(samples: readonly Sample[], field: Field, sources: readonly string[]): Accuracy {
  let n = 0;
  let correct = 0;
  for (const s of samples) {
    if (!sources.includes(claimSource(s, field))) continue;
    if (s.expected[field] === null) continue;
    n++;
    if (s.claimed[field] === s.expected[field]) correct++;
  }
  return acc(n, correct);
}

export function bySource(samples: readonly Sample[], field: Field): Record<string, Accuracy> {
  const sources = [...new Set(samples.map((s) => claimSource(s, field)))].sort();
  return Object.fromEntries(sources.map((src) => [src, accuracy(samples, field, [src])]));
}

export function unknownShare(samples: readonly Sample[]): { share: number; byReason: Record<string, number> } {
  const byReason: Record<string, number> = {};
  let unknown = 0;
  for (const s of samples) {
    if (s.claimed.handshakeClass !== 'unknown') continue;
    unknown++;
    const r = s.claimed.unknownReason ?? 'unspecified';
    byReason[r] = (byReason[r] ?? 0) + 1;
  }
  return { share: samples.length ? unknown / samples.length : 0, byReason };
}

export interface TimingRow {
  connection: string;
  browser: Sample['browser'];
  /** The arm whose sample came first: `synthetic` for the connections the synthetic and rum arms share. */
  arm: Sample['arm'];
  entryType: Sample['entryType'];
  /** The server's truth: a full handshake or a resumption (null where the server cannot say). */
  resumed: boolean | null;
  server: string;
  profile: string;
  rttMs: number;
  handshakeClass: string;
  /** HTTP/3 over QUIC: its TLS phase is no round-trip count like TCP's (see timing()). */
  quic: boolean;
  /** QUIC only: the lab's server sat on its flight until the client re-sent its ClientHello (quic-stall.ts). */
  quicStalled: boolean | null;
  rttMultiple: number;
  tls: number;
  rawExpected: number;
  rawError: number;
  /** Injected delay actually applied to the handshake's flights, from the proxy's own log. */
  injected: number | null;
  cpu: number;
  calibratedExpected: number | null;
  calibratedError: number | null;
  tolerance: number;
  rawWithin: boolean;
  calibratedWithin: boolean | null;
}

export const tolerance = (expectedMs: number) => Math.max(2, 0.05 * expectedMs);

const median = (xs: number[]) => {
  if (!xs.length) return 0;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/** The first sample of each connection: the synthetic and rum arms share one timing entry. */
export function uniqueConnections(samples: readonly Sample[]): Sample[] {
  const seen = new Set<string>();
  return samples.filter((s) => (seen.has(s.connection) ? false : (seen.add(s.connection), true)));
}

/**
 * One row per connection (the arms share the timing entry). The handshake's CPU cost per server and
 * class (full or resumed) is the median TLS phase of the zero-delay profile in the same run (QUIC handshakes that stalled
 * on the server left out: that wait is a probe timeout, not CPU).
 */
export function timing(samples: readonly Sample[], zeroProfile = 'local'): { rows: TimingRow[]; cpu: Record<string, number> } {
  const unique = uniqueConnections(samples);
  const cpuSamples: Record<string, number[]> = {};
  // Per browser too: Chromium and Firefox spend different CPU on the same handshake. And per full vs
  // resumed (the server's truth): a resumption sends no certificate and signs nothing, so the client
  // verifies nothing — at zero delay it costs 1.2–2.3 ms where a full handshake costs 2.3–4.1 ms,
  // a difference that alone exceeds the 2 ms tolerance at 20 ms RTT when the two share one median.
  const handshake = (s: Sample) => (s.expected.resumed === null ? 'resumption unknown' : s.expected.resumed ? 'resumed' : 'full');
  const key = (s: Sample) => `${s.browser}|${s.server}|${s.expected.handshakeClass}|${handshake(s)}`;
  for (const s of unique) {
    if (s.profile !== zeroProfile || (s.claimed.protocol === 'h3' && quicStalled(s.proxy))) continue;
    (cpuSamples[key(s)] ??= []).push(s.claimed.tls);
  }
  const cpu = Object.fromEntries(Object.entries(cpuSamples).map(([k, v]) => [k, Math.round(median(v) * 10) / 10]));
  const rows: TimingRow[] = [];
  for (const s of unique) {
    if (s.rttMs <= 0) continue;
    const k = s.expected.rttMultiple;
    const rawExpected = k * s.rttMs;
    const first = (d: 'up' | 'down') => s.proxy?.[d].first;
    const up = first('up');
    const down = first('down');
    const injected = up && down && up.length >= k && down.length >= k ? up.slice(0, k).reduce((a, b) => a + b, 0) + down.slice(0, k).reduce((a, b) => a + b, 0) : null;
    const c = cpu[key(s)] ?? 0;
    const calibratedExpected = injected === null ? null : injected + c;
    const tol = tolerance(rawExpected);
    rows.push({
      connection: s.connection,
      browser: s.browser,
      arm: s.arm,
      entryType: s.entryType,
      resumed: s.expected.resumed,
      server: s.server,
      profile: s.profile,
      rttMs: s.rttMs,
      handshakeClass: s.expected.handshakeClass,
      quic: s.claimed.protocol === 'h3',
      quicStalled: s.claimed.protocol === 'h3' ? quicStalled(s.proxy) : null,
      rttMultiple: k,
      tls: s.claimed.tls,
      rawExpected,
      rawError: s.claimed.tls - rawExpected,
      injected,
      cpu: c,
      calibratedExpected,
      calibratedError: calibratedExpected === null ? null : s.claimed.tls - calibratedExpected,
      tolerance: tol,
      rawWithin: Math.abs(s.claimed.tls - rawExpected) <= tol,
      calibratedWithin: calibratedExpected === null ? null : Math.abs(s.claimed.tls - calibratedExpected) <= tol,
    });
  }
  return { rows, cpu };
}

export interface Summary {
  connections: number;
  tlsVersionAccuracy: number | null;
  resumedAccuracy: number | null;
  classAccuracy: number | null;
  timingWithinTolerance: number | null;
  unknownShare: number;
  /** Not in the object but stated beside it: the uncalibrated timing figure. */
  timingWithinToleranceRaw: number | null;
  /**
   * HTTP/3 connections, scored apart from the headline (which is over TCP connections): Chromium's
   * QUIC `connectEnd` is handshake *confirmation*, and the lab's Caddy often stalls its first flight.
   */
  timingWithinToleranceH3: number | null;
}

export function summarise(samples: readonly Sample[]): Summary {
  const t = timing(samples);
  // 0-RTT: the request leaves before the handshake completes, so the TLS phase is no round-trip count.
  const rows = t.rows.filter((r) => r.handshakeClass !== '0rtt');
  const tcp = rows.filter((r) => !r.quic);
  const within = (rs: TimingRow[]) => {
    const cal = rs.filter((r) => r.calibratedWithin !== null);
    return cal.length ? cal.filter((r) => r.calibratedWithin).length / cal.length : null;
  };
  return {
    connections: new Set(samples.map((s) => s.connection)).size,
    tlsVersionAccuracy: accuracy(samples, 'tlsVersion', STRONG_SOURCES).accuracy,
    resumedAccuracy: accuracy(samples, 'resumed', STRONG_SOURCES).accuracy,
    // Every class a record states (timing-derived ones included); `unknown` claims nothing.
    classAccuracy: accuracy(samples, 'handshakeClass', ['observed', 'implied', 'timing']).accuracy,
    timingWithinTolerance: within(tcp),
    unknownShare: unknownShare(samples).share,
    timingWithinToleranceRaw: tcp.length ? tcp.filter((r) => r.rawWithin).length / tcp.length : null,
    timingWithinToleranceH3: within(rows.filter((r) => r.quic)),
  };
}

export const ARMS: Arm[] = ['synthetic', 'rum', 'extension'];
