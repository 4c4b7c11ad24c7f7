/**
 * Batch ids seen recently, so a batch resent by a client (same batchId) is acknowledged without being
 * stored twice. Bounded: the oldest ids are forgotten first; the store's insert deduplication token
 * covers a replayed segment whatever this window holds.
 *
 * With a journal file, the window survives a restart: ids of segments the store has taken are
 * appended to it (ids still in the spool are recovered from the segments themselves), and it is
 * rewritten with only the newest `capacity` ids when it grows past twice that. The journal is not
 * fsynced: losing its tail in a machine crash only narrows the window.
 */
import { appendFile, rename, writeFile } from 'node:fs/promises';
import { existsSync, readFileSync } from 'node:fs';
import { LruMap } from '../lru-map';

export class RecentBatches {
  private readonly ids: LruMap<string, true>;
  private journalLines = 0;
  private compacting: Promise<void> | null = null;

  constructor(
    private readonly capacity = 100_000,
    private readonly journalPath: string | null = null,
  ) {
    this.ids = new LruMap(capacity);
    if (journalPath && existsSync(journalPath)) {
      const lines = readFileSync(journalPath, 'utf8')
        .split('\n')
        .filter((l) => /^[0-9a-f-]{36}$/.test(l));
      for (const id of lines.slice(-capacity)) this.add(id);
      this.journalLines = lines.length;
    }
  }

  get size(): number {
    return this.ids.size;
  }

  has(id: string): boolean {
    return this.ids.has(id.toLowerCase());
  }

  add(id: string): void {
    // Newest again if already known; the oldest beyond `capacity` is forgotten.
    this.ids.set(id.toLowerCase(), true);
  }

  delete(id: string): void {
    this.ids.delete(id.toLowerCase());
  }

  /** Records ids the store has taken, so they are still known after a restart. */
  async journal(ids: string[]): Promise<void> {
    if (!this.journalPath || ids.length === 0) return;
    await this.compacting;
    await appendFile(this.journalPath, ids.map((id) => id.toLowerCase()).join('\n') + '\n');
    this.journalLines += ids.length;
    if (this.journalLines > 2 * this.capacity) {
      this.compacting = this.compact().finally(() => (this.compacting = null));
      await this.compacting;
    }
  }

  private async compact(): Promise<void> {
    const path = this.journalPath!;
    const keep = [...this.ids.keys()].slice(-this.capacity);
    await writeFile(`${path}.tmp`, keep.join('\n') + '\n');
    await rename(`${path}.tmp`, path);
    this.journalLines = keep.length;
  }
}
