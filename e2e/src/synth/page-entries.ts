/**
 * Scripts run in the page, as source text: a function passed to page.evaluate would be serialised
 * from the transpiled module, and tsx/esbuild inject helpers (`__name`) that do not exist in the page.
 */
import type { ConnectionTiming } from '@tlsrum/shared/classify';

export interface PageEntry {
  url: string;
  timing: ConnectionTiming;
  timeOrigin: number;
  responseStatus: number;
  serverTiming: Array<{ name: string; description: string }>;
}

/** Enough for a page with hundreds of resources (the default buffer holds 250). */
export const ENLARGE_RESOURCE_BUFFER = `try { performance.setResourceTimingBufferSize(2000); } catch (e) {}`;

/** The navigation and resource timing entries of https URLs, as PageEntry[]. */
export const READ_PAGE_ENTRIES = `(() => {
  const entries = [...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')];
  return entries.filter((e) => e.name.startsWith('https:')).map((e) => ({
    url: e.name,
    timeOrigin: performance.timeOrigin,
    responseStatus: typeof e.responseStatus === 'number' ? e.responseStatus : 0,
    serverTiming: (e.serverTiming || []).map((s) => ({ name: s.name, description: s.description })),
    timing: {
      entryType: e.entryType === 'navigation' ? 'navigation' : 'resource',
      nextHopProtocol: e.nextHopProtocol || '',
      startTime: e.startTime,
      fetchStart: e.fetchStart,
      domainLookupStart: e.domainLookupStart,
      domainLookupEnd: e.domainLookupEnd,
      connectStart: e.connectStart,
      secureConnectionStart: e.secureConnectionStart,
      connectEnd: e.connectEnd,
      requestStart: e.requestStart,
      responseStart: e.responseStart,
    },
  }));
})()`;
