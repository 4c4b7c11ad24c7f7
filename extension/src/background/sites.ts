/**
 * The collector's registered sites and their TLS profiles (`GET /v1/sites`), cached in storage.local. A
 * hostname is sent only when it is in this list; when the list cannot be fetched and nothing is cached,
 * every `site` is null. A site's profile (what its servers accept) feeds classification (`site-profile`).
 */
import { isValidHostname } from '@tlsrum/shared/constants';
import { asSiteProfile, type SiteProfile } from '@tlsrum/shared/classify';
import { FETCH_TIMEOUT_MS, SITES_TTL_MS } from '../lib/constants';
import { readKey, type KeyValueArea } from '../lib/storage';

interface CachedSites {
  collectorUrl: string;
  fetchedAt: number;
  sites: string[];
  /** Absent in caches written before profiles existed, and from collectors that send none. */
  profiles?: Record<string, SiteProfile>;
}

export interface SiteList {
  sites: Set<string>;
  profiles: Map<string, SiteProfile>;
}

const listOf = (sites: string[], profiles: Record<string, SiteProfile> = {}): SiteList => ({
  sites: new Set(sites),
  profiles: new Map(Object.entries(profiles).filter(([h]) => sites.includes(h))),
});

export class RegisteredSites {
  private inflight: Promise<SiteList> | null = null;

  constructor(
    private readonly area: KeyValueArea,
    private readonly fetcher: typeof fetch = (...a) => fetch(...a),
    private readonly now: () => number = () => Date.now(),
  ) {}

  /** The cached list; refreshed when older than the TTL or fetched for another collector. */
  async get(collectorUrl: string, options: { refresh?: boolean } = {}): Promise<Set<string>> {
    return (await this.withProfiles(collectorUrl, options)).sites;
  }

  /** The cached list with the sites' profiles (same cache, same refresh). */
  async withProfiles(collectorUrl: string, { refresh = false } = {}): Promise<SiteList> {
    const cached = await readKey<CachedSites | null>(this.area, 'sites', null);
    const usable = cached && cached.collectorUrl === collectorUrl;
    if (usable && !refresh && this.now() - cached.fetchedAt < SITES_TTL_MS)
      return listOf(cached.sites, cached.profiles);
    this.inflight ??= this.fetchList(collectorUrl, usable ? cached : null).finally(() => (this.inflight = null));
    return this.inflight;
  }

  private async fetchList(collectorUrl: string, stale: CachedSites | null): Promise<SiteList> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), FETCH_TIMEOUT_MS);
    try {
      const res = await this.fetcher(`${collectorUrl}/v1/sites`, { signal: controller.signal, credentials: 'omit' });
      if (!res.ok) throw new Error(`status ${res.status}`);
      const body = (await res.json()) as { sites?: unknown; profiles?: unknown };
      const sites = Array.isArray(body.sites)
        ? body.sites.filter((s): s is string => typeof s === 'string' && isValidHostname(s))
        : [];
      const received =
        typeof body.profiles === 'object' && body.profiles !== null ? (body.profiles as Record<string, unknown>) : {};
      const profiles: Record<string, SiteProfile> = {};
      for (const site of sites) {
        const p = asSiteProfile(received[site], site);
        if (p) profiles[site] = p;
      }
      await this.area.set({ sites: { collectorUrl, fetchedAt: this.now(), sites, profiles } satisfies CachedSites });
      return listOf(sites, profiles);
    } catch {
      // Keep using what we had (possibly nothing: then no hostname is sent at all).
      return listOf(stale?.sites ?? [], stale?.profiles);
    } finally {
      clearTimeout(timer);
    }
  }
}
