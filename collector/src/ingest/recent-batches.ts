/**
 * Batch ids seen recently, so a batch resent by a client (same batchId) is acknowledged without being
 * stored twice. Bounded: the oldest ids are forgotten first; the store's insert deduplication token
 * covers what this window misses.
 */
export class RecentBatches {
  private readonly ids = new Set<string>();

  constructor(private readonly capacity = 100_000) {}

  has(id: string): boolean {
    return this.ids.has(id.toLowerCase());
  }

  add(id: string): void {
    const key = id.toLowerCase();
    this.ids.delete(key);
    this.ids.add(key);
    if (this.ids.size > this.capacity) this.ids.delete(this.ids.values().next().value!);
  }
}
