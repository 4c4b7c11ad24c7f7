/**
 * An https timing entry as the content script posts it to the background: a flat tuple, because reading
 * and serialising it happens on the page's main thread, and arrays of numbers are the cheapest there.
 * The page only gathers; the background turns each tuple back into a Measurement, checks it (a content
 * script runs beside untrusted pages) and classifies it. Only the hostname of the entry's URL is in it,
 * never the URL.
 */
import { isValidHostname } from '@tlsrum/shared/constants';
import {
  connectionKind,
  httpsHost,
  SERVER_TIMING_METRIC,
  TIMING_FIELDS,
  tlsServerTimingOf,
  type ConnectionTiming,
  type TimingEntryLike,
} from '@tlsrum/shared/classify';
import type { Measurement, PageCounts } from '../messages';

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

const HEAD = 4;

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
    // Firefox reports a navigation's fetchStart before timeOrigin (negative) after a redirect or a
    // slow unload: only finiteness is required of it and startTime.
    if (
      typeof value !== 'number' ||
      !Number.isFinite(value) ||
      (value < 0 && field !== 'fetchStart' && field !== 'startTime')
    )
      return null;
    timing[field] = value;
  }
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
    const kind = m ? connectionKind(m.timing) : 'invalid';
    if (kind === 'new') measurements.push(m!);
    else if (kind === 'opaque') counts.opaque++;
    else if (kind === 'reused') counts.reused++;
    else counts.skipped++;
  }
  return { measurements, counts };
}
