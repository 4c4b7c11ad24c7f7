/**
 * Pure part of the content script: timing entries → measurements and counts. Keeps only the hostname
 * of each entry's URL; the URL itself is dropped here, in the page.
 */
import { connectionKind, SERVER_TIMING_METRIC, type ConnectionTiming } from '@tlsrum/shared/classify';
import type { Measurement, PageCounts } from '../messages';

/** The fields we read, as both PerformanceResourceTiming and PerformanceNavigationTiming have them. */
export interface TimingEntryLike {
  name: string;
  entryType: string;
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
  serverTiming?: ReadonlyArray<{ name: string; description: string }>;
}

export function emptyCounts(): PageCounts {
  return { opaque: 0, reused: 0, skipped: 0 };
}

/** Hostname of an https: URL, else null (http:, data:, blob:, extension URLs are not TLS handshakes we measure). */
export function httpsHost(url: string): string | null {
  if (!url.startsWith('https://')) return null;
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return null;
  }
}

export function measureEntries(entries: Iterable<TimingEntryLike>, timeOrigin: number, counts: PageCounts): Measurement[] {
  const out: Measurement[] = [];
  for (const e of entries) {
    if (e.entryType !== 'navigation' && e.entryType !== 'resource') continue;
    const host = httpsHost(e.name);
    if (!host) continue;
    const timing: ConnectionTiming = {
      entryType: e.entryType,
      nextHopProtocol: e.nextHopProtocol ?? '',
      startTime: e.startTime,
      fetchStart: e.fetchStart,
      domainLookupStart: e.domainLookupStart,
      domainLookupEnd: e.domainLookupEnd,
      connectStart: e.connectStart,
      secureConnectionStart: e.secureConnectionStart,
      connectEnd: e.connectEnd,
      requestStart: e.requestStart,
      responseStart: e.responseStart,
    };
    const kind = connectionKind(timing);
    if (kind === 'opaque') counts.opaque++;
    else if (kind === 'reused') counts.reused++;
    else if (kind !== 'new') counts.skipped++;
    if (kind !== 'new') continue;
    const tls = e.serverTiming?.find((m) => m.name === SERVER_TIMING_METRIC);
    out.push({
      host,
      timing,
      startEpochMs: timeOrigin + e.connectStart,
      responseEpochMs: timeOrigin + e.responseStart,
      ...(tls ? { serverTiming: [{ name: tls.name, description: String(tls.description).slice(0, 200) }] } : {}),
    });
  }
  return out;
}
