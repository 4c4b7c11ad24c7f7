/**
 * Content script (registered by the background only after opt-in, never on excluded sites). Stays out
 * of the page's way: it does nothing until the page has loaded and the main thread is idle, then
 * observes navigation and resource timing with `buffered: true` — one callback with every entry from
 * before — and posts the new connections to the background as flat tuples in one message. Entries
 * that arrive later (lazy images, fetches) are posted in batches. Nothing here can throw into the page.
 */
import { extensionApi } from '../lib/browser';
import type { EntryTuple } from '../lib/entry-tuple';
import type { Message, NetworkHints, PageCounts } from '../messages';
import { emptyCounts, newConnections } from './measure';
import type { TimingEntryLike } from '@tlsrum/shared/classify';

const IDLE_TIMEOUT_MS = 3_000;
/** A page whose load event never comes (a hung resource) is measured from this long after injection. */
const MAX_WAIT_FOR_LOAD_MS = 15_000;
/** Entries after the first batch are posted together, at most once per this interval. */
const BATCH_MS = 2_000;

function networkHints(): NetworkHints {
  // Network Information API: Chromium only.
  const c = (navigator as Navigator & { connection?: { effectiveType?: string; rtt?: number } }).connection;
  return { effectiveType: c?.effectiveType ?? null, rttHint: typeof c?.rtt === 'number' ? c.rtt : null };
}

function whenIdle(fn: () => void): void {
  if (typeof requestIdleCallback === 'function') requestIdleCallback(fn, { timeout: IDLE_TIMEOUT_MS });
  else setTimeout(fn, 0);
}

/** Runs `fn` once, inside try/catch: a failure here must never reach the page. */
function guarded(fn: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    try {
      fn();
    } catch {
      /* never into the page */
    }
  };
}

function observe(): void {
  let entries: EntryTuple[] = [];
  let counts: PageCounts = emptyCounts();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let posted = false;
  // The navigation entry is complete by now (we start after load); a second delivery of it would
  // measure its connection twice.
  let navigationSeen = false;

  const post = () => {
    timer = undefined;
    try {
      if (!entries.length && counts.opaque + counts.reused + counts.skipped === 0) return;
      const message: Message = { type: 'measurements', timeOrigin: performance.timeOrigin, entries, counts, network: networkHints() };
      entries = [];
      counts = emptyCounts();
      // The background may be restarting or the extension updated: losing one page's entries is fine.
      void extensionApi().runtime.sendMessage(message).catch(() => undefined);
    } catch {
      /* never into the page */
    }
  };

  const observer = new PerformanceObserver((list) => {
    try {
      const fresh: PerformanceEntry[] = [];
      for (const e of list.getEntries()) {
        if (e.entryType === 'navigation') {
          if (navigationSeen) continue;
          navigationSeen = true;
        }
        fresh.push(e);
      }
      entries.push(...newConnections(fresh as unknown as TimingEntryLike[], counts));
      // The buffered entries (everything up to load) go at once; later ones wait for company.
      if (!posted) {
        posted = true;
        post();
      } else timer ??= setTimeout(post, BATCH_MS);
    } catch {
      /* never into the page */
    }
  });
  for (const type of ['navigation', 'resource']) {
    try {
      observer.observe({ type, buffered: true });
    } catch {
      /* entry type unsupported in this browser */
    }
  }
  // A batch still waiting when the user leaves (pagehide keeps the page eligible for the back/forward cache, unload would not).
  addEventListener('pagehide', () => timer !== undefined && (clearTimeout(timer), post()));
  // Back/forward cache: a restored page keeps this observer and its state (what was posted stays posted;
  // the navigation entry is not delivered again). A restore opens no connection of its own; later
  // fetches are new entries, batched as usual.
}

/** Starts after load and an idle period. */
function startWhenLoaded(): void {
  const start = guarded(() => whenIdle(guarded(observe)));
  if (document.readyState === 'complete') start();
  else {
    const fallback = setTimeout(start, MAX_WAIT_FOR_LOAD_MS);
    addEventListener('load', () => (clearTimeout(fallback), start()), { once: true });
  }
}

try {
  // A prerendered page (speculation rules) may never be shown: nothing is measured until the user
  // activates it, the way web-vitals waits (document.prerendering / prerenderingchange). Its
  // connections, opened while prerendering, are then measured like any other.
  if ((document as Document & { prerendering?: boolean }).prerendering) {
    document.addEventListener('prerenderingchange', guarded(startWhenLoaded), { once: true });
  } else startWhenLoaded();
} catch {
  /* never into the page */
}
