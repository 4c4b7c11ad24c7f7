/**
 * The hostnames a registered site's beacon may report: the site's own and the extra hostnames registered
 * for it (`POST /v1/sites/:hostname/probe-targets`). Read from the store at most every `refreshMs`, at once
 * after this collector adds or removes one (`changed()`), and again (at most every MISS_REFRESH_MS) when a
 * page's origin is not among them, so that a hostname added on another collector is accepted soon after.
 */
import type { ClickHouseClient } from '@clickhouse/client';
import { listProbeTargets } from '../probes/store';

const MISS_REFRESH_MS = 5_000;

export class SiteHostnames {
  private extra = new Map<string, Set<string>>();
  private readAt = -Infinity;
  private reading: Promise<void> | null = null;
  /** Counts this collector's changes: a read begun before one is not kept. */
  private generation = 0;

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

  /** A hostname was added or removed on this collector: the next question reads the store again. */
  changed(): void {
    this.generation += 1;
    this.readAt = -Infinity;
    this.reading = null;
  }

  private hostsOf(site: string): Set<string> {
    return new Set([site, ...(this.extra.get(site) ?? [])]);
  }

  private read(): Promise<void> {
    if (this.reading) return this.reading;
    const generation = this.generation;
    const reading = listProbeTargets(this.client)
      .then((targets) => {
        if (generation !== this.generation) return;
        const extra = new Map<string, Set<string>>();
        for (const t of targets) {
          let set = extra.get(t.site);
          if (!set) extra.set(t.site, (set = new Set()));
          set.add(t.hostname);
        }
        this.extra = extra;
        this.readAt = Date.now();
      })
      .finally(() => {
        if (this.reading === reading) this.reading = null;
      });
    this.reading = reading;
    return reading;
  }
}
