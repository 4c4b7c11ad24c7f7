/**
 * An https timing entry as a page posts it: a flat tuple, because reading and serialising it happens on
 * the page's main thread, and arrays of numbers are the cheapest there. The page only gathers (the
 * extension's content script, the site's own beacon); the extension's background or the collector turns
 * each tuple back into a Measurement, checks it (the sender is untrusted) and classifies it. Only the
 * hostname of the entry's URL is in it, never the URL.
 */
import { isValidHostname, MAX_PHASE_MS } from '../constants';
import { connectionTimingOf, httpsHost, TIMING_FIELDS, tlsServerTimingOf, type TimingEntryLike } from './entries';
import { SERVER_TIMING_METRIC } from './server-timing';
import { connectionKind, type ConnectionTiming } from './timing';

const BEFORE_CONNECTION: ReadonlySet<string> = new Set([
  'startTime',
  'fetchStart',
  'domainLookupStart',
  'domainLookupEnd',
]);

/** One new TLS connection seen in a page (posted as an EntryTuple). The URL never leaves the page: only its hostname. */
export interface Measurement {
  host: string;
  timing: ConnectionTiming;
  /** epoch ms of the connection's start (performance.timeOrigin + connectStart). */
  startEpochMs: number;
  /** epoch ms when the response started (for joining Firefox's security info). */
  responseEpochMs: number;
  /** The `tls` Server-Timing metric, when the site sends one (exposed only with Timing-Allow-Origin). */
  serverTiming?: { name: string; description: string }[];
}

/** Entries of a page that were not measured, by why. */
export interface PageCounts {
  /** Cross-origin entries without Timing-Allow-Origin: connection fields are zeros. */
  opaque: number;
  reused: number;
  /** Plain-HTTP connections (no TLS) and entries with fields out of order. */
  skipped: number;
}

/** [hostname, entryType, nextHopProtocol, `tls` Server-Timing description or null, ...TIMING_FIELDS values] */
export type EntryTuple = [
  host: string,
  entryType: ConnectionTiming['entryType'],
  nextHopProtocol: string,
  tlsServerTiming: string | null,
  ...timing: number[],
];

/** The entry as a tuple, or null for one that is not a navigation or resource over https (http:, data:, blob:, extension URLs). */
export function entryTupleOf(e: TimingEntryLike): EntryTuple | null {
  const entryType = e.entryType;
  if (entryType !== 'navigation' && entryType !== 'resource') return null;
  const host = httpsHost(e.name);
  if (!host) return null;
  // Written out in TIMING_FIELDS order rather than mapped over it: this runs once per page, cold, in
  // V8's interpreter, where keyed reads through a callback cost several times plain ones.
  return [
    host,
    entryType,
    e.nextHopProtocol ?? '',
    tlsServerTimingOf(e),
    e.startTime,
    e.fetchStart,
    e.domainLookupStart,
    e.domainLookupEnd,
    e.connectStart,
    e.secureConnectionStart,
    e.connectEnd,
    e.requestStart,
    e.responseStart,
  ];
}

/**
 * The tuple of an entry over a connection it opened (a handshake to measure), else null: the page then
 * sends nothing of reused, opaque, plain-HTTP or disordered entries. The receiver checks again. Each of
 * the entry's fields is read once (every read is a call into the browser), and its hostname and
 * Server-Timing only for a new connection: the beacon runs this for every entry of the page, cold, in
 * the task that hides the page. Times are rounded to the microsecond, below every browser's timer
 * resolution (5 µs at best): `123.40000000596046` is sent as `123.4`, which halves the body the browser
 * copies when it sends it.
 */
export function newConnectionTupleOf(e: TimingEntryLike): EntryTuple | null {
  const t = connectionTimingOf(e);
  // A connection opened before the page's time origin (Firefox) is sent when the receiver takes it
  // (connectionStartAccepted): one it refuses would have the beacon's whole page view refused with it.
  // Classified as https: an entry that is not has no host below, and is not sent either way.
  if (!t || !connectionStartAccepted(t.connectStart, t.fetchStart) || connectionKind(t, HTTPS_ENTRY) !== 'new')
    return null;
  const host = httpsHost(e.name);
  if (!host) return null;
  return [
    host,
    t.entryType,
    t.nextHopProtocol,
    tlsServerTimingOf(e),
    us(t.startTime),
    us(t.fetchStart),
    us(t.domainLookupStart),
    us(t.domainLookupEnd),
    us(t.connectStart),
    us(t.secureConnectionStart),
    us(t.connectEnd),
    us(t.requestStart),
    us(t.responseStart),
  ];
}

/** ms rounded to the microsecond. */
function us(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

const HEAD = 4;

/** Every tuple is of an https entry (entryTupleOf, newConnectionTupleOf): how connectionKind reads it. */
export const HTTPS_ENTRY = { https: true } as const;

/**
 * Firefox timestamps a navigation's fetch, and so the connection it opens, a little before the page's
 * time origin when the page was opened from another one, after a redirect or a slow unload, and on a busy
 * machine (seen: fetchStart -3, connectStart -1, connectEnd 13). Such a connection is still the page's
 * own, and its phases are exact: its times may be negative, from the fetch's start on and at most
 * MAX_PHASE_MS before the origin. Leaving these out would leave out navigations from busy machines.
 */
function connectionStartAccepted(connectStart: number, fetchStart: number): boolean {
  return connectStart >= 0 || (connectStart >= fetchStart && connectStart >= -MAX_PHASE_MS);
}

/** The Measurement a tuple stands for, or null when it is malformed. `timeOrigin` is the page's performance.timeOrigin. */
export function measurementOf(tuple: unknown, timeOrigin: unknown): Measurement | null {
  if (!Array.isArray(tuple) || tuple.length !== HEAD + TIMING_FIELDS.length) return null;
  if (typeof timeOrigin !== 'number' || !Number.isFinite(timeOrigin)) return null;
  const [host, entryType, nextHopProtocol, tls] = tuple as unknown[];
  if (typeof host !== 'string' || !isValidHostname(host)) return null;
  if ((entryType !== 'navigation' && entryType !== 'resource') || typeof nextHopProtocol !== 'string') return null;
  if (tls !== null && (typeof tls !== 'string' || tls.length > 200)) return null;
  const timing = { entryType, nextHopProtocol } as ConnectionTiming;
  for (let i = 0; i < TIMING_FIELDS.length; i++) {
    const field = TIMING_FIELDS[i]!;
    const value = tuple[HEAD + i] as unknown;
    // The fields before the connection may be anything finite (Firefox: negative after a redirect or a
    // slow unload); the connection's own at most MAX_PHASE_MS before the origin (connectionStartAccepted).
    if (typeof value !== 'number' || !Number.isFinite(value)) return null;
    if (value < -MAX_PHASE_MS && !BEFORE_CONNECTION.has(field)) return null;
    timing[field] = value;
  }
  if (!connectionStartAccepted(timing.connectStart, timing.fetchStart)) return null;
  return {
    host,
    timing,
    startEpochMs: timeOrigin + timing.connectStart,
    responseEpochMs: timeOrigin + timing.responseStart,
    ...(tls !== null ? { serverTiming: [{ name: SERVER_TIMING_METRIC, description: tls }] } : {}),
  };
}

/**
 * The page's tuples → its new TLS connections, and counts of the rest: entries over reused or opaque
 * (no Timing-Allow-Origin) connections, and those the classifier skips (no TLS, fields out of order,
 * malformed tuples).
 */
export function newConnectionsOf(
  tuples: unknown,
  timeOrigin: unknown,
): { measurements: Measurement[]; counts: PageCounts } {
  const counts: PageCounts = { opaque: 0, reused: 0, skipped: 0 };
  const measurements: Measurement[] = [];
  if (!Array.isArray(tuples)) return { measurements, counts };
  for (const tuple of tuples) {
    const m = measurementOf(tuple, timeOrigin);
    const kind = m ? connectionKind(m.timing, HTTPS_ENTRY) : 'invalid';
    if (kind === 'new') measurements.push(m!);
    else if (kind === 'opaque') counts.opaque++;
    else if (kind === 'reused') counts.reused++;
    else counts.skipped++;
  }
  return { measurements, counts };
}
