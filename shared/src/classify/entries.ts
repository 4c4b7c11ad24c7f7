/**
 * Reading a Navigation or Resource Timing entry: the one implementation behind the extension's content
 * script (live PerformanceResourceTiming objects), the synthetic runner and the fixture recorder (the
 * entries' toJSON() brought out of the page). Pure functions over objects shaped like the entries.
 */
import { SERVER_TIMING_METRIC } from './server-timing';
import { connectionKind, type ConnectionKind, type ConnectionTiming } from './timing';

/** The numeric fields of a timing entry that the classifier reads, in a fixed order. */
export const TIMING_FIELDS = [
  'startTime',
  'fetchStart',
  'domainLookupStart',
  'domainLookupEnd',
  'connectStart',
  'secureConnectionStart',
  'connectEnd',
  'requestStart',
  'responseStart',
] as const;

export type TimingField = (typeof TIMING_FIELDS)[number];

/** What PerformanceResourceTiming and PerformanceNavigationTiming (and their toJSON()) have in common that we read. */
export type TimingEntryLike = { readonly [F in TimingField]: number } & {
  readonly name: string;
  readonly entryType: string;
  /** Absent in browsers that do not expose it. */
  readonly nextHopProtocol?: string;
  readonly serverTiming?: ReadonlyArray<{ readonly name: string; readonly description: string }>;
};

/**
 * Source text to evaluate in a page (puppeteer's page.evaluate) from outside it: the page's navigation
 * and resource entries as JSON (`toJSON()` plus the Server-Timing metrics) and its timeOrigin. Text, not
 * a function: a function would be serialised from the transpiled module, and tsx/esbuild inject helpers
 * (`__name`) that do not exist in the page. Read the entries with connectionTimingOf / serverTimingOf.
 */
export const DUMP_TIMING_ENTRIES = `(() => ({
  timeOrigin: performance.timeOrigin,
  entries: [...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')].map((e) => ({
    ...e.toJSON(),
    serverTiming: (e.serverTiming || []).map((s) => ({ name: s.name, description: s.description })),
  })),
}))()`;

/** What DUMP_TIMING_ENTRIES gives. */
export interface TimingEntriesDump {
  timeOrigin: number;
  entries: Array<TimingEntryLike & { responseStatus?: number }>;
}

/** The entry's connection timing, or null for an entry that is neither navigation nor resource. */
export function connectionTimingOf(e: TimingEntryLike): ConnectionTiming | null {
  const entryType = e.entryType;
  if (entryType !== 'navigation' && entryType !== 'resource') return null;
  return {
    entryType,
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
}

/** The entry's Server-Timing metrics as plain objects. */
export function serverTimingOf(e: Pick<TimingEntryLike, 'serverTiming'>): { name: string; description: string }[] {
  return (e.serverTiming ?? []).map((m) => ({ name: String(m.name), description: String(m.description) }));
}

/** The description of the entry's `tls` Server-Timing metric (the site's own account; at most 200 characters), or null. */
export function tlsServerTimingOf(e: Pick<TimingEntryLike, 'serverTiming'>): string | null {
  const metric = e.serverTiming?.find((m) => m.name === SERVER_TIMING_METRIC);
  return metric ? String(metric.description).slice(0, 200) : null;
}

/** connectionKind of an entry whose URL is at hand (the synthetic runner, the lab): its scheme says whether it is https. */
export function connectionKindOf(e: { timing: ConnectionTiming; url: string }): ConnectionKind {
  return connectionKind(e.timing, { https: e.url.startsWith('https:') });
}

/**
 * Hostname of an https: URL as a browser serialises it (an entry's `name`), else null: http:, data:,
 * blob: and extension URLs are not TLS handshakes we measure. String slicing rather than `new URL`:
 * the content script runs this on the page's main thread for every new connection, and a serialised
 * URL's host is already lower-case ASCII (punycode).
 */
export function httpsHost(url: string): string | null {
  if (!url.startsWith('https://')) return null;
  let end = url.length;
  for (const delimiter of ['/', '?', '#', '\\']) {
    const i = url.indexOf(delimiter, 8);
    if (i !== -1 && i < end) end = i;
  }
  let authority = url.slice(8, end);
  authority = authority.slice(authority.lastIndexOf('@') + 1);
  const colon = authority.lastIndexOf(':');
  const host = colon > authority.lastIndexOf(']') ? authority.slice(0, colon) : authority;
  return host ? host.toLowerCase() : null;
}
