/**
 * The registered sites and their read-token hashes, held in memory for the ingest path and the query
 * API and refreshed from the store, so that several collectors behind a load balancer converge within
 * `refreshMs` after one of them registers a site (sooner for tokens: an unknown token triggers a refresh).
 */
import type { ClickHouseClient } from '@clickhouse/client';
import { Mutex } from '@tlsrum/shared/mutex';
import { matchTokenHash } from './auth';
import { listSiteRows, saveSite } from './store';

/** An unknown token refreshes the registry at most this often (a token guesser cannot load the store). */
const TOKEN_MISS_REFRESH_MS = 5000;

export class SiteRegistry {
  private sites = new Map<string, string>();
  private timer: NodeJS.Timeout | null = null;
  private lastRefresh = 0;
  private changes = 0;
  /**
   * The registry's reads of the store and its writes, one at a time: a refresh that read the store before a
   * registration was saved would otherwise put its older list back over it, and the new site's records would
   * be stored as unregistered and its token refused until the next refresh.
   */
  private readonly turns = new Mutex();

  constructor(private readonly client: ClickHouseClient) {}

  /** Reads the sites now and every `refreshMs`; a failed read is reported to `onError` and tried again at the next. */
  async start(refreshMs = 60_000, onError?: (err: unknown) => void): Promise<void> {
    this.timer = setInterval(() => this.refresh().catch((err) => onError?.(err)), refreshMs);
    this.timer.unref();
    await this.refresh().catch((err) => onError?.(err));
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  refresh(): Promise<void> {
    return this.turns.run(async () => {
      this.lastRefresh = Date.now();
      const fresh = new Map((await listSiteRows(this.client)).map((r) => [r.hostname, r.tokenHash]));
      const changed = fresh.size !== this.sites.size || [...fresh].some(([h, t]) => this.sites.get(h) !== t);
      this.sites = fresh;
      if (changed) this.changes++;
    });
  }

  /** Goes up whenever a site or its token changes (kept answers name registered hostnames: query/answer-cache.ts). */
  get version(): number {
    return this.changes;
  }

  has = (hostname: string): boolean => this.sites.has(hostname);

  list(): string[] {
    return [...this.sites.keys()].sort();
  }

  /** The site whose read token this is, or null. */
  async siteForToken(token: string): Promise<string | null> {
    const found = matchTokenHash(token, this.sites.entries());
    if (found || Date.now() - this.lastRefresh < TOKEN_MISS_REFRESH_MS) return found;
    await this.refresh();
    return matchTokenHash(token, this.sites.entries());
  }

  /** Registers (or re-registers) a site with the hash of its new read token; true when it was new. */
  register(hostname: string, tokenHash = ''): Promise<boolean> {
    return this.turns.run(async () => {
      const added = !this.sites.has(hostname);
      await saveSite(this.client, hostname, false, tokenHash);
      this.sites.set(hostname, tokenHash);
      this.changes++;
      return added;
    });
  }

  unregister(hostname: string): Promise<boolean> {
    return this.turns.run(async () => {
      const had = this.sites.delete(hostname);
      this.changes++;
      await saveSite(this.client, hostname, true);
      return had;
    });
  }
}
