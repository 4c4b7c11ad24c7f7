/**
 * The registered sites' TLS profiles (shared/src/classify/site-profile.ts), built from the store and held in
 * memory: served with `GET /v1/sites` (the extension caches that list) and applied at ingest to records
 * that arrived without them. Rebuilt every `refreshMs` and after each probe cycle.
 */
import type { ClickHouseClient } from '@clickhouse/client';
import {
  browserSupportsTls13,
  buildSiteProfile,
  profileClaims,
  PROFILE_MAX_PROBE_AGE_MS,
  PROFILE_WINDOW_MS,
  type Browser,
  type ProfileClaims,
  type SiteProfile,
} from '@tlsrum/shared';
import { backgroundQuery } from '../../platform/store/query-pool';
import { readProfileSources } from './store';

export class SiteProfiles {
  private profiles = new Map<string, SiteProfile>();
  /** Claims per site for browsers with and without TLS 1.3: ingest looks them up per record. */
  private claims = new Map<string, { tls13: ProfileClaims | null; older: ProfileClaims | null }>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private queued: Promise<void> | null = null;

  constructor(
    private readonly client: ClickHouseClient,
    private readonly sites: () => string[],
    private readonly now: () => number = Date.now,
  ) {}

  start(refreshMs: number, onError?: (err: unknown) => void): void {
    void this.refresh().catch((err) => onError?.(err));
    this.timer = setInterval(() => this.refresh().catch((err) => onError?.(err)), refreshMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /**
   * Rebuilds every registered site's profile. A rebuild under way read its sources before this call (a
   * site registered or a probe stored since would be missed), so a call meanwhile gets one more rebuild
   * after it, shared by every call made meanwhile.
   */
  refresh(): Promise<void> {
    if (!this.running) {
      this.running = this.rebuild().finally(() => (this.running = null));
      return this.running;
    }
    this.queued ??= this.running
      .catch(() => undefined)
      .then(() => {
        this.queued = null;
        return this.refresh();
      });
    return this.queued;
  }

  private async rebuild(): Promise<void> {
    const sites = this.sites();
    const now = this.now();
    // Work no reader waits for (at the collector's start, every few minutes, after each probe cycle): it
    // reads the sites' raw rows of the profile window, so it goes after the readers (store/query-pool.ts).
    const { probes, observations } = await backgroundQuery.run(true, () =>
      readProfileSources(this.client, sites, now, PROFILE_MAX_PROBE_AGE_MS, PROFILE_WINDOW_MS),
    );
    const profiles = new Map<string, SiteProfile>();
    const claims = new Map<string, { tls13: ProfileClaims | null; older: ProfileClaims | null }>();
    for (const site of sites) {
      const p = buildSiteProfile({
        hostname: site,
        probes: probes.get(site) ?? [],
        observations: observations.get(site) ?? { versions: {}, resumed: {} },
        now,
      });
      profiles.set(site, p);
      claims.set(site, { tls13: profileClaims(p, 'chrome', 999), older: profileClaims(p, 'other', 0) });
    }
    this.profiles = profiles;
    this.claims = claims;
  }

  /** Every registered site's profile, by hostname. */
  all(): Record<string, SiteProfile> {
    return Object.fromEntries(this.profiles);
  }

  get(site: string): SiteProfile | null {
    return this.profiles.get(site) ?? null;
  }

  /** What the profile of a registered site says for a record of this browser (null: nothing). */
  claimsFor(site: string, browser: Browser, browserMajor: number): ProfileClaims | null {
    const c = this.claims.get(site);
    if (!c) return null;
    return browserSupportsTls13(browser, browserMajor) ? c.tls13 : c.older;
  }
}
