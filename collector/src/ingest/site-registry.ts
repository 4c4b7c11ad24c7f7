/**
 * The registered sites, held in memory for the ingest path and refreshed from the store, so that several
 * collectors behind a load balancer converge within `refreshMs` after one of them registers a site.
 */
import type { ClickHouseClient } from '@clickhouse/client';
import { listSites, saveSite } from '../queries/sites';

export class SiteRegistry {
  private sites = new Set<string>();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly client: ClickHouseClient) {}

  async start(refreshMs = 60_000, onError?: (err: unknown) => void): Promise<void> {
    await this.refresh();
    this.timer = setInterval(() => this.refresh().catch((err) => onError?.(err)), refreshMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  async refresh(): Promise<void> {
    this.sites = new Set(await listSites(this.client));
  }

  has = (hostname: string): boolean => this.sites.has(hostname);

  list(): string[] {
    return [...this.sites].sort();
  }

  async register(hostname: string): Promise<boolean> {
    const added = !this.sites.has(hostname);
    await saveSite(this.client, hostname, false);
    this.sites.add(hostname);
    return added;
  }

  async unregister(hostname: string): Promise<boolean> {
    const had = this.sites.delete(hostname);
    await saveSite(this.client, hostname, true);
    return had;
  }
}
