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
import {
  BEACON_MAX_BYTES,
  BEACON_MAX_ENTRIES,
  BEACON_PATH,
  BEACON_VERSION,
  type BeaconBody,
} from '@tlsrum/shared/beacon';
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
    start(() => options);
  } catch {
    /* never into the page */
  }
}

/**
 * Registers the two listeners — all the page pays for while it loads. Everything else (the options,
 * the sampling draw, the timing entries) is read when the page is hidden: the first use of each browser
 * API costs the page a binding, and paying that once, at the end, keeps it off the load.
 */
export function start(optionsWhenHidden: () => BeaconOptions): void {
  // Entries already sent: the navigation entry, and resources up to this index (a restored page sends only newer ones).
  let sentResources = 0;
  let navigationSent = false;
  let sent = false;
  let sampled: boolean | undefined;

  const send = () => {
    try {
      // A prerendered page (speculation rules) the visitor never opened sends nothing; once opened, its
      // connections, made while prerendering, are measured like any other.
      if (sent || (document as Document & { prerendering?: boolean }).prerendering) return;
      sent = true;
      const { collector, site, sample = 1, hosts = [] } = optionsWhenHidden();
      // One draw per page, kept for the page's later views (back/forward cache).
      if (!(sampled ??= Math.random() < sample)) return;
      const perf = performance;
      // Without Resource Timing there is nothing to measure.
      if (typeof perf.getEntriesByType !== 'function') return;
      const own = [site, location.hostname, ...hosts].map((h) => h.toLowerCase());
      const entries: EntryTuple[] = [];
      const take = (list: ArrayLike<TimingEntryLike>, from: number) => {
        for (let i = from; i < list.length && entries.length < BEACON_MAX_ENTRIES; i++) {
          const tuple = newConnectionTupleOf(list[i]!);
          if (tuple && own.includes(tuple[0])) entries.push(tuple);
        }
      };
      if (!navigationSent) take(perf.getEntriesByType('navigation') as unknown as TimingEntryLike[], 0);
      navigationSent = true;
      const resources = perf.getEntriesByType('resource') as unknown as TimingEntryLike[];
      // The page may have cleared its resource buffer since (performance.clearResourceTimings()).
      take(resources, resources.length < sentResources ? 0 : sentResources);
      sentResources = resources.length;
      if (!entries.length) return;
      const url = originOf(collector) + BEACON_PATH;
      const body: BeaconBody = { v: BEACON_VERSION, site, timeOrigin: perf.timeOrigin, entries };
      const text = JSON.stringify(body);
      if (text.length > BEACON_MAX_BYTES) return;
      // A string is sent as text/plain: no CORS preflight, and the answer is never read.
      if (!navigator.sendBeacon?.(url, text))
        void fetch(url, { method: 'POST', body: text, keepalive: true, mode: 'no-cors', credentials: 'omit' }).catch(
          () => undefined,
        );
    } catch {
      /* never into the page */
    }
  };

  addEventListener('visibilitychange', () => document.visibilityState === 'hidden' && send());
  // pagehide keeps the page eligible for the back/forward cache (unload would not). A page kept there
  // (persisted) may be restored: that is a new page view, whose later connections are sent again.
  addEventListener('pagehide', (e) => {
    send();
    if (e.persisted) sent = false;
  });
}

/** `https://host:port` of a URL or origin (string slicing: no URL object, see above). */
function originOf(url: string): string {
  const end = url.indexOf('/', url.indexOf('//') + 2);
  return end < 0 ? url : url.slice(0, end);
}
