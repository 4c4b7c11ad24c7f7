/**
 * The page's timing entries, read out of the page. The page only hands over its entries' own JSON
 * (DUMP_TIMING_ENTRIES); what they mean is read with the shared reader (`@tlsrum/shared/classify`
 * entries.ts), the same one the extension's content script uses.
 */
import { connectionTimingOf, DUMP_TIMING_ENTRIES, serverTimingOf, type ConnectionTiming, type TimingEntriesDump } from '@tlsrum/shared/classify';

export interface PageEntry {
  url: string;
  timing: ConnectionTiming;
  timeOrigin: number;
  responseStatus: number;
  serverTiming: Array<{ name: string; description: string }>;
}

/** Enough for a page with hundreds of resources (the default buffer holds 250). */
export const ENLARGE_RESOURCE_BUFFER = `try { performance.setResourceTimingBufferSize(2000); } catch (e) {}`;

/** The entries of https URLs, as PageEntry[]. */
export function pageEntriesOf(dump: TimingEntriesDump): PageEntry[] {
  const out: PageEntry[] = [];
  for (const e of dump.entries) {
    const timing = e.name.startsWith('https:') ? connectionTimingOf(e) : null;
    if (!timing) continue;
    out.push({
      url: e.name,
      timing,
      timeOrigin: dump.timeOrigin,
      responseStatus: typeof e.responseStatus === 'number' ? e.responseStatus : 0,
      serverTiming: serverTimingOf(e),
    });
  }
  return out;
}

/** The page's https navigation and resource timing entries. */
export async function readPageEntries(page: { evaluate(script: string): Promise<unknown> }): Promise<PageEntry[]> {
  return pageEntriesOf((await page.evaluate(DUMP_TIMING_ENTRIES)) as TimingEntriesDump);
}
