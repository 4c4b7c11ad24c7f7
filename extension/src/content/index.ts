/**
 * Content script (registered by the background only after opt-in, never on excluded sites). Stays out
 * of the page's way: it does nothing until the page has loaded and the main thread is idle, then reads
 * the navigation and resource entries in that one task and posts the https ones to the background as
 * flat tuples in one message; the background classifies them. Entries that arrive later (lazy images,
 * fetches) are posted in batches. Nothing here can throw into the page. What each step costs the page's
 * main thread: BENCHMARKS.md, extension-overhead.
 */
import { extensionApi } from '../lib/browser';
import type { EntryTuple } from '@tlsrum/shared/classify';
import type { Message } from '../messages';
import { gatherEntries } from './measure';
import type { TimingEntryLike } from '@tlsrum/shared/classify';

const IDLE_TIMEOUT_MS = 3_000;
/** A page whose load event never comes (a hung resource) is measured from this long after injection. */
const MAX_WAIT_FOR_LOAD_MS = 15_000;
/** Entries after the first batch are posted together, at most once per this interval. */
const BATCH_MS = 2_000;

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

function collect(): void {
  let entries: EntryTuple[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;

  const post = () => {
    timer = undefined;
    try {
      if (!entries.length) return;
      const message: Message = { type: 'measurements', timeOrigin: performance.timeOrigin, entries };
      entries = [];
      // The background may be restarting or the extension updated: losing one page's entries is fine.
      void extensionApi()
        .runtime.sendMessage(message)
        .catch(() => undefined);
    } catch {
      /* never into the page */
    }
  };

  // Everything up to now, read straight from the timeline in this one task: a buffered observer would
  // cost a task of its own to create and another to deliver. The navigation entry is complete (we start
  // after load) and is read only here, so a restored page (back/forward cache) never measures it twice.
  gatherEntries(performance.getEntriesByType('navigation') as unknown as TimingEntryLike[], entries);
  gatherEntries(performance.getEntriesByType('resource') as unknown as TimingEntryLike[], entries);
  post();

  // Later entries (lazy images, fetches): an observer without `buffered` starts exactly after the
  // entries just read (no task ran in between), and posts them in batches.
  try {
    new PerformanceObserver((list) => {
      try {
        gatherEntries(list.getEntries() as unknown as TimingEntryLike[], entries);
        timer ??= setTimeout(post, BATCH_MS);
      } catch {
        /* never into the page */
      }
    }).observe({ type: 'resource' });
  } catch {
    /* no PerformanceObserver for resources in this browser */
  }
  // A batch still waiting when the user leaves (pagehide keeps the page eligible for the back/forward cache, unload would not).
  addEventListener('pagehide', () => timer !== undefined && (clearTimeout(timer), post()));
  // Back/forward cache: a restored page keeps this observer and its state (what was posted stays posted).
  // A restore opens no connection of its own; later fetches are new entries, batched as usual.
}

/** Starts after load and an idle period. */
function startWhenLoaded(): void {
  const start = guarded(() => whenIdle(guarded(collect)));
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
