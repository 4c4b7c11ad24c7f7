/**
 * Answers of the read routes kept for a short while (ANSWER_CACHE_SECONDS). A dashboard view asks about
 * fifteen questions; every viewer of the same minute, and the same viewer reloading, asks the same ones,
 * and their answers change only as records arrive. A kept answer is served as it was sent, so it costs
 * neither a store query nor the collector's own work (the what-if model).
 *
 * An answer is keyed by everything it depends on and nothing else: the route, the reader's resolved scope
 * (query/routes/read-scope.ts: site, range, the k-sites rule, owner), every query parameter, and the site
 * registry's version (an all-sites answer names registered hostnames only, so a registration or removal
 * starts afresh). It is looked up after the token is checked, so a revoked token never reads a kept answer;
 * the memory it holds is bounded in bytes.
 *
 * An answer is fresh for its time to live. For a while after (`staleMs`, stale-while-revalidate), it is
 * still served at once while one fresh answer is worked out behind it (kept-answers.ts): a view in use
 * never makes its next viewer wait for the store because a minute has passed. After that it is dropped.
 */
export interface KeptAnswer {
  /** The answer as it was sent (JSON). */
  body: string;
  /** Its headers that say how to read and keep it (content-type, cache-control, vary). */
  headers: Record<string, string>;
  /** When it was kept (epoch ms). */
  at: number;
  /** The body compressed, by content coding ('br', 'gzip'), as readers asked for it (counted in the budget). */
  encoded: Map<string, Buffer>;
}

export class AnswerCache {
  /** Insertion order is age order: the oldest entry is first, and each lives exactly `ttlMs`. */
  private readonly entries = new Map<string, KeptAnswer>();
  private bytes = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly maxBytes: number,
    private readonly now: () => number = Date.now,
    private readonly staleMs = 0,
  ) {}

  get enabled(): boolean {
    return this.ttlMs > 0 && this.maxBytes > 0;
  }

  get size(): number {
    return this.entries.size;
  }

  get heldBytes(): number {
    return this.bytes;
  }

  /** The kept answer for `key` if it is younger than the time to live. */
  get(key: string): KeptAnswer | undefined {
    this.expire();
    const kept = this.entries.get(key);
    return kept && this.now() - kept.at < this.ttlMs ? kept : undefined;
  }

  /** The kept answer for `key` if it is past its time to live but still within the stale window. */
  getStale(key: string): KeptAnswer | undefined {
    this.expire();
    const kept = this.entries.get(key);
    return kept && this.now() - kept.at >= this.ttlMs ? kept : undefined;
  }

  set(key: string, body: string, headers: Record<string, string>): void {
    if (!this.enabled) return;
    const size = sizeOf(key, body);
    // One answer larger than the whole budget is not kept (it would empty the cache for nothing).
    if (size > this.maxBytes) return;
    this.delete(key);
    this.entries.set(key, { body, headers, at: this.now(), encoded: new Map() });
    this.bytes += size;
    this.evict();
  }

  /** `key`'s answer compressed as `coding`, if it is kept as `body` and was compressed that way before. */
  getEncoded(key: string, body: string, coding: string): Buffer | undefined {
    const kept = this.entries.get(key);
    return kept?.body === body ? kept.encoded.get(coding) : undefined;
  }

  /**
   * Keeps `key`'s answer compressed as `coding` beside its text, if that answer is still kept as `body`
   * (a newer one may have replaced it meanwhile): a reader asking for that coding is served it as is.
   */
  setEncoded(key: string, body: string, coding: string, encoded: Buffer): void {
    const kept = this.entries.get(key);
    if (!kept || kept.body !== body || kept.encoded.has(coding)) return;
    kept.encoded.set(coding, encoded);
    this.bytes += encoded.length;
    this.evict();
  }

  /** Drops expired entries, then the oldest until the budget holds. */
  private evict(): void {
    this.expire();
    for (const oldest of this.entries.keys()) {
      if (this.bytes <= this.maxBytes) break;
      this.delete(oldest);
    }
  }

  private delete(key: string): void {
    const kept = this.entries.get(key);
    if (!kept) return;
    this.entries.delete(key);
    this.bytes -= sizeOf(key, kept.body);
    for (const encoded of kept.encoded.values()) this.bytes -= encoded.length;
  }

  /** Drops the entries past their time to live and stale window (they are the oldest, so at the front). */
  private expire(): void {
    const oldestKept = this.now() - this.ttlMs - this.staleMs;
    for (const [key, kept] of this.entries) {
      if (kept.at > oldestKept) break;
      this.delete(key);
    }
  }
}

/** Bytes an entry holds, near enough: two per character of its key and body (V8's widest strings). */
function sizeOf(key: string, body: string): number {
  return 2 * (key.length + body.length);
}
