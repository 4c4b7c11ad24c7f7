/**
 * What a Navigation or Resource Timing entry says about the connection behind it. Pure functions over
 * plain numbers: the extension feeds them PerformanceResourceTiming fields, the lab feeds them recorded
 * fixtures, the synthetic runner feeds them what it read from the page.
 */
import { roundPhase, type EntryType, type Protocol, type Transport } from '../constants';

/** The subset of a PerformanceResourceTiming / PerformanceNavigationTiming entry that we read. */
export interface ConnectionTiming {
  entryType: EntryType;
  nextHopProtocol: string;
  startTime: number;
  fetchStart: number;
  domainLookupStart: number;
  domainLookupEnd: number;
  connectStart: number;
  secureConnectionStart: number;
  connectEnd: number;
  requestStart: number;
  responseStart: number;
}

/**
 * - `new`: this fetch opened a new TLS connection: a handshake we can measure.
 * - `reused`: no connection was set up for this fetch. Either an existing connection carried it
 *   (connectStart == connectEnd == fetchStart: the spec sets the connection fields to fetchStart), or the
 *   browser pooled it onto an open HTTP/2 or HTTP/3 connection after a DNS lookup (connectStart ==
 *   connectEnd == domainLookupEnd, and no TLS start of its own). Not a handshake.
 * - `opaque`: cross-origin without Timing-Allow-Origin: every connection field is 0, or (what Firefox
 *   shows an extension's content script) timings present but no nextHopProtocol. Counted, not measured.
 * - `insecure`: a new connection without TLS (secureConnectionStart == 0): out of scope. On an entry known to
 *   be https, a connection Firefox opened before the page's time origin (connectStart < 0) whose TLS started
 *   at the origin itself also reads 0: there it is that instant, and the connection is `new`.
 * - `invalid`: fields out of order (clock or browser bug); never turned into a record.
 *
 * connectStart == connectEnd alone does not mean reuse: Firefox reports whole milliseconds, so a new
 * loopback connection can show connectStart == secureConnectionStart == connectEnd. When that instant
 * differs from fetchStart and a TLS start is reported, it is a new connection with phases below the
 * clock's resolution.
 */
export type ConnectionKind = 'new' | 'reused' | 'opaque' | 'insecure' | 'invalid';

export function connectionKind(t: ConnectionTiming, entry: { https?: boolean } = {}): ConnectionKind {
  if (t.connectStart === 0 && t.connectEnd === 0 && t.requestStart === 0 && t.responseStart === 0) return 'opaque';
  if (t.connectEnd === t.connectStart) {
    if (t.connectStart === t.fetchStart) return 'reused';
    // Pooled after DNS: the connection fields collapse onto domainLookupEnd and no TLS started.
    if (t.secureConnectionStart === 0 || t.secureConnectionStart < t.connectStart) return 'reused';
  }
  // Firefox shows an extension's content script the connection timings of a cross-origin entry without
  // Timing-Allow-Origin (the extension's host permission lifts the check) but still withholds
  // nextHopProtocol. The site did not allow timing: treat it as opaque, as a page would see it.
  if (t.nextHopProtocol === '') return 'opaque';
  if (t.secureConnectionStart === 0 && !(entry.https === true && t.connectStart < 0)) return 'insecure';
  const ordered =
    t.domainLookupStart <= t.domainLookupEnd &&
    t.domainLookupEnd <= t.connectStart &&
    t.connectStart <= t.secureConnectionStart &&
    t.secureConnectionStart <= t.connectEnd &&
    t.requestStart > 0 &&
    t.responseStart >= t.requestStart;
  return ordered ? 'new' : 'invalid';
}

export interface Phases {
  dns: number;
  tcp: number;
  tls: number;
  connect: number;
  ttfb: number;
}

const clampPhase = (ms: number) => roundPhase(Math.min(Math.max(ms, 0), 60_000));

/** Phase durations of a `new` connection, rounded to 0.1 ms and clamped to the schema's bounds. */
export function measurePhases(t: ConnectionTiming): Phases {
  return {
    dns: clampPhase(t.domainLookupEnd - t.domainLookupStart),
    tcp: clampPhase(t.secureConnectionStart - t.connectStart),
    tls: clampPhase(t.connectEnd - t.secureConnectionStart),
    connect: clampPhase(t.connectEnd - t.connectStart),
    ttfb: clampPhase(t.responseStart - t.requestStart),
  };
}

/** nextHopProtocol → our closed set. Draft h3 tokens (h3-29 …) count as h3. */
export function normaliseProtocol(nextHopProtocol: string): Protocol {
  const p = nextHopProtocol.trim().toLowerCase();
  if (p === 'http/1.1' || p === 'http/1.0') return 'http/1.1';
  if (p === 'h2') return 'h2';
  if (p === 'h3' || p.startsWith('h3-') || p === 'quic') return 'h3';
  return 'other';
}

export function transportOf(protocol: Protocol): Transport {
  return protocol === 'h3' ? 'quic' : 'tcp';
}
