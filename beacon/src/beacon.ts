/**
 * The beacon in the page. It does nothing until the page is hidden (`visibilitychange: hidden` or
 * `pagehide`, whichever comes first): then, in that one task, it reads the navigation and resource
 * entries, keeps those of new TLS connections to the site's own hosts (the rules of the extension's content
 * script: shared/src/classify/entry-tuple.ts) and sends them once, with `navigator.sendBeacon` (or
 * `fetch` with `keepalive`). Connections to other hosts (third parties) are not sent at all.
 *
 * No cookie, no storage, no URL: only hostnames and timings leave the page. Nothing here throws into the
 * page; a browser without Resource Timing, `sendBeacon` or `fetch` is left alone.
 */
import { BEACON_MAX_BYTES, BEACON_MAX_ENTRIES, BEACON_PATH, BEACON_VERSION, type BeaconBody } from '@tlsrum/shared/beacon';
import { newConnectionTupleOf, type EntryTuple, type TimingEntryLike } from '@tlsrum/shared/classify';

export interface BeaconOptions {
  /** The collector's origin, e.g. `https://rum.example.net` (the path is ignored). */
  collector: string;
  /** The registered site's hostname. */
  site: string;
  /** Share of page views measured, 0–1 (default 1: every page view). */
  sample?: number;
  /** Other hostnames of the site whose connections this page measures (registered with the site as extra hostnames). */
  hosts?: string[];
}

export function init(options: BeaconOptions): void {
  try {
    start(options);
  } catch {
    /* never into the page */
  }
}

function start({ collector, site, sample = 1, hosts = [] }: BeaconOptions): void {
  const perf = performance;
  // Without Resource Timing (or in a worker) there is nothing to measure.
  if (typeof PerformanceResourceTiming !== 'function' || typeof perf.getEntriesByType !== 'function' || typeof document !== 'object') return;
  if (!(Math.random() < sample)) return;
  const url = new URL(BEACON_PATH, collector).href;
  const own = new Set([site, location.hostname, ...hosts].map((h) => h.toLowerCase()));
  // Entries already sent: the navigation entry, and resources up to this index (a restored page sends only newer ones).
  let sentResources = 0;
  let navigationSent = false;
  let sent = false;

  const send = () => {
    try {
      if (sent) return;
      sent = true;
      const entries: EntryTuple[] = [];
      const take = (list: ArrayLike<TimingEntryLike>, from: number) => {
        for (let i = from; i < list.length && entries.length < BEACON_MAX_ENTRIES; i++) {
          const tuple = newConnectionTupleOf(list[i]!);
          if (tuple && own.has(tuple[0])) entries.push(tuple);
        }
      };
      if (!navigationSent) take(perf.getEntriesByType('navigation') as unknown as TimingEntryLike[], 0);
      navigationSent = true;
      const resources = perf.getEntriesByType('resource') as unknown as TimingEntryLike[];
      // The page may have cleared its resource buffer since (performance.clearResourceTimings()).
      take(resources, resources.length < sentResources ? 0 : sentResources);
      sentResources = resources.length;
      if (!entries.length) return;
      const body: BeaconBody = { v: BEACON_VERSION, site, timeOrigin: perf.timeOrigin, entries };
      const text = JSON.stringify(body);
      if (text.length > BEACON_MAX_BYTES) return;
      // A string is sent as text/plain: no CORS preflight, and the answer is never read.
      if (!navigator.sendBeacon?.(url, text)) void fetch(url, { method: 'POST', body: text, keepalive: true, mode: 'no-cors', credentials: 'omit' }).catch(() => undefined);
    } catch {
      /* never into the page */
    }
  };

  const listen = () => {
    addEventListener('visibilitychange', () => document.visibilityState === 'hidden' && send());
    // pagehide keeps the page eligible for the back/forward cache (unload would not).
    addEventListener('pagehide', send);
    // A page restored from the back/forward cache is a new page view: its later connections are sent again.
    addEventListener('pageshow', (e) => e.persisted && (sent = false));
  };

  // A prerendered page (speculation rules) may never be shown: nothing is sent unless it is activated.
  // Its connections, opened while prerendering, are then measured like any other.
  if ((document as Document & { prerendering?: boolean }).prerendering) document.addEventListener('prerenderingchange', listen, { once: true });
  else listen();
}
