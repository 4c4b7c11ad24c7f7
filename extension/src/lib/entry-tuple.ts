/**
 * A new TLS connection as the content script posts it to the background: a flat tuple, because building
 * and serialising it happens on the page's main thread, and arrays of numbers are the cheapest there.
 * The background turns it back into a Measurement and checks it: a content script runs beside untrusted
 * pages. Only the hostname of the entry's URL is in it, never the URL.
 */
import { isValidHostname } from '@tlsrum/shared/constants';
import { SERVER_TIMING_METRIC, TIMING_FIELDS, type ConnectionTiming } from '@tlsrum/shared/classify';
import type { Measurement } from '../messages';

/** [hostname, entryType, nextHopProtocol, `tls` Server-Timing description or null, ...TIMING_FIELDS values] */
export type EntryTuple = [host: string, entryType: ConnectionTiming['entryType'], nextHopProtocol: string, tlsServerTiming: string | null, ...timing: number[]];

export function toEntryTuple(host: string, t: ConnectionTiming, tls: string | null): EntryTuple {
  // Written out in TIMING_FIELDS order rather than mapped over it: this runs once per page, cold, in
  // V8's interpreter, where keyed reads through a callback cost several times plain ones.
  return [host, t.entryType, t.nextHopProtocol, tls, t.startTime, t.fetchStart, t.domainLookupStart, t.domainLookupEnd, t.connectStart, t.secureConnectionStart, t.connectEnd, t.requestStart, t.responseStart];
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
    if (typeof value !== 'number' || !Number.isFinite(value) || (value < 0 && field !== 'fetchStart' && field !== 'startTime')) return null;
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
