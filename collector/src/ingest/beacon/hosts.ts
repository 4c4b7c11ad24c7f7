/**
 * The hostnames a registered site's beacon may report: the site's own and the extra hostnames registered
 * for it (`POST /v1/sites/:hostname/probe-targets`). Read from the store at most every `refreshMs`, and
 * again (at most every MISS_REFRESH_MS) when a page's origin is not among them, so that a hostname added
 * on another collector is accepted soon after.
 */
import type { ClickHouseClient } from '@clickhouse/client';
import { listProbeTargets } from '../../probes/store';

const MISS_REFRESH_MS = 5_000;

export class SiteHostnames {
  private extra = new Map<string, Set<string>>();
  private readAt = -Infinity;
  private reading: Promise<void> | null = null;

  constructor(
    private readonly client: ClickHouseClient,
    private readonly refreshMs = 60_000,
  ) {}

  /** The site's hostnames; `want`, when given and missing, triggers an early re-read. */
  async of(site: string, want?: string): Promise<Set<string>> {
    const age = Date.now() - this.readAt;
    let hosts = this.hostsOf(site);
    if (age > this.refreshMs || (want !== undefined && !hosts.has(want) && age > MISS_REFRESH_MS)) {
      await this.read();
      hosts = this.hostsOf(site);
    }
    return hosts;
  }

  private hostsOf(site: string): Set<string> {
    return new Set([site, ...(this.extra.get(site) ?? [])]);
  }

  private read(): Promise<void> {
    this.reading ??= listProbeTargets(this.client)
      .then((targets) => {
        const extra = new Map<string, Set<string>>();
        for (const t of targets) {
          let set = extra.get(t.site);
          if (!set) extra.set(t.site, (set = new Set()));
          set.add(t.hostname);
        }
        this.extra = extra;
        this.readAt = Date.now();
      })
      .finally(() => (this.reading = null));
    return this.reading;
  }
}
