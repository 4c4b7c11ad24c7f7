/**
 * Pure part of the content script: timing entries → tuples to post. It only gathers: the hostname of
 * each https entry's URL (the URL itself is dropped here, in the page) and its timing fields.
 * Classification (new, reused, opaque) happens in the background, off the page's main thread.
 */
import type { TimingEntryLike } from '@tlsrum/shared/classify';
import { entryTupleOf, type EntryTuple } from '@tlsrum/shared/classify';

export function gatherEntries(entries: ArrayLike<TimingEntryLike>, out: EntryTuple[]): void {
  // An indexed loop: no iterator objects, in code that runs cold once per page.
  for (let i = 0; i < entries.length; i++) {
    const tuple = entryTupleOf(entries[i]!);
    if (tuple) out.push(tuple);
  }
}
