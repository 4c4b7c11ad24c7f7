/**
 * The page's timing entries, read out of the page. The page only hands over its entries' own JSON
 * (DUMP_TIMING_ENTRIES); what they mean is read with the shared reader (`@tlsrum/shared/classify`
 * entries.ts), the same one the extension's content script uses.
 */
import {
  connectionTimingOf,
  DUMP_TIMING_ENTRIES,
  serverTimingOf,
  type ConnectionKind,
  type ConnectionTiming,
  type HandshakeHistory,
  type SecurityInfo,
  type TimingEntriesDump,
} from '@tlsrum/shared/classify';
import { buildRecord, type RecordEnv } from './records';
import type { ConnectionObservation } from './types';

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

/** Epoch ms of the entry's connectStart (its startTime when it opened no connection). */
export const connectStartEpochMsOf = (entry: PageEntry) =>
  entry.timeOrigin + (entry.timing.connectStart || entry.timing.startTime);

/**
 * One entry as the runner reports it, in either browser: where it went, how it connected, and — for a
 * new connection — the record, built by the same rules as the extension's. What only one browser can
 * tell (CDP + NetLog, or Firefox's security info) comes in `browserReport`.
 */
export function observeEntry(o: {
  entry: PageEntry;
  kind: ConnectionKind;
  site: string | null;
  env: RecordEnv;
  response: { status: number; headers: Record<string, string> } | null;
  observed: SecurityInfo | null;
  history?: HandshakeHistory | null;
  browserReport: Pick<ConnectionObservation, 'securityDetails' | 'netlog' | 'firefoxSecurityInfo'>;
}): ConnectionObservation {
  const { entry } = o;
  const u = new URL(entry.url);
  const connectStartEpochMs = connectStartEpochMsOf(entry);
  return {
    host: u.hostname,
    port: Number(u.port || 443),
    entryType: entry.timing.entryType,
    url: entry.url,
    kind: o.kind,
    timing: entry.timing,
    connectStartEpochMs,
    responseStatus: o.response?.status ?? (entry.responseStatus || null),
    responseHeaders: o.response?.headers ?? {},
    serverTiming: entry.serverTiming,
    ...o.browserReport,
    record:
      o.kind === 'new'
        ? buildRecord({
            timing: entry.timing,
            connectStartEpochMs,
            site: o.site,
            observed: o.observed,
            serverTiming: entry.serverTiming,
            env: o.env,
            history: o.history,
          })
        : null,
  };
}
