/**
 * Pure part of the content script: timing entries → the new TLS connections to post, and counts of
 * the rest. Keeps only the hostname of each entry's URL; the URL itself is dropped here, in the page.
 * Handshake classification happens in the background, not here.
 */
import { connectionKind, connectionTimingOf, httpsHost, tlsServerTimingOf, type TimingEntryLike } from '@tlsrum/shared/classify';
import { toEntryTuple, type EntryTuple } from '../lib/entry-tuple';
import type { PageCounts } from '../messages';

export function emptyCounts(): PageCounts {
  return { opaque: 0, reused: 0, skipped: 0 };
}

export function newConnections(entries: Iterable<TimingEntryLike>, counts: PageCounts): EntryTuple[] {
  const out: EntryTuple[] = [];
  for (const e of entries) {
    const host = httpsHost(e.name);
    const timing = host && connectionTimingOf(e);
    if (!timing) continue;
    const kind = connectionKind(timing);
    if (kind === 'new') out.push(toEntryTuple(host, timing, tlsServerTimingOf(e)));
    else if (kind === 'opaque') counts.opaque++;
    else if (kind === 'reused') counts.reused++;
    else counts.skipped++;
  }
  return out;
}
