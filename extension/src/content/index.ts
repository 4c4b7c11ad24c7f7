/**
 * Content script (registered by the background only after opt-in, never on excluded sites). Observes
 * navigation and resource timing entries, including those buffered before it ran, and hands the new
 * connections to the background. Work happens in idle time, off the page's critical path; nothing
 * here can throw into the page.
 */
import { api } from '../lib/browser';
import type { Message, NetworkHints } from '../messages';
import { emptyCounts, measureEntries, type TimingEntryLike } from './measure';

const IDLE_TIMEOUT_MS = 3_000;

function networkHints(): NetworkHints {
  // Network Information API: Chromium only.
  const c = (navigator as Navigator & { connection?: { effectiveType?: string; rtt?: number } }).connection;
  return { effectiveType: c?.effectiveType ?? null, rttHint: typeof c?.rtt === 'number' ? c.rtt : null };
}

function start(): void {
  let pending: PerformanceEntry[] = [];
  let scheduled = false;
  // Chromium can deliver the navigation entry twice (buffered, then again once complete): report each
  // entry once. The key is made of timestamps, not the URL.
  const seen = new Set<string>();
  const firstTime = (e: PerformanceEntry) => {
    const t = e as PerformanceResourceTiming;
    const key = `${e.entryType} ${e.startTime} ${t.fetchStart} ${t.connectStart} ${t.responseStart}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  };

  const later = (fn: () => void) => {
    if (typeof requestIdleCallback === 'function') requestIdleCallback(fn, { timeout: IDLE_TIMEOUT_MS });
    else setTimeout(fn, 0);
  };

  const process = () => {
    scheduled = false;
    try {
      const entries = pending;
      pending = [];
      const counts = emptyCounts();
      const measurements = measureEntries(entries as unknown as TimingEntryLike[], performance.timeOrigin, counts);
      if (measurements.length === 0 && counts.opaque + counts.reused + counts.skipped === 0) return;
      const message: Message = { type: 'measurements', measurements, counts, network: networkHints() };
      // The background may be restarting or the extension updated: losing one page's entries is fine.
      void api.runtime.sendMessage(message).catch(() => undefined);
    } catch {
      /* never into the page */
    }
  };

  const observer = new PerformanceObserver((list) => {
    try {
      for (const e of list.getEntries()) if (firstTime(e)) pending.push(e);
      if (!scheduled) {
        scheduled = true;
        later(process);
      }
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
}

try {
  start();
} catch {
  /* never into the page */
}
