/**
 * The collector's registered sites (`GET /v1/sites`), cached in storage.local. A hostname is sent only
 * when it is in this list; when the list cannot be fetched and nothing is cached, every `site` is null.
 */
import { isValidHostname } from '@tlsrum/shared/constants';
import { FETCH_TIMEOUT_MS, SITES_TTL_MS } from '../lib/constants';
import { readKey, type KeyValueArea } from '../lib/storage';

interface CachedSites {
  collectorUrl: string;
  fetchedAt: number;
  sites: string[];
}

export class RegisteredSites {
  private inflight: Promise<Set<string>> | null = null;

  constructor(
    private readonly area: KeyValueArea,
    private readonly fetcher: typeof fetch = (...a) => fetch(...a),
    private readonly now: () => number = () => Date.now(),
  ) {}

  /** The cached list; refreshed when older than the TTL or fetched for another collector. */
  async get(collectorUrl: string, { refresh = false } = {}): Promise<Set<string>> {
    const cached = await readKey<CachedSites | null>(this.area, 'sites', null);
    const usable = cached && cached.collectorUrl === collectorUrl;
    if (usable && !refresh && this.now() - cached.fetchedAt < SITES_TTL_MS) return new Set(cached.sites);
    this.inflight ??= this.fetchList(collectorUrl, usable ? cached.sites : []).finally(() => (this.inflight = null));
    return this.inflight;
  }

  private async fetchList(collectorUrl: string, stale: string[]): Promise<Set<string>> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), FETCH_TIMEOUT_MS);
    try {
      const res = await this.fetcher(`${collectorUrl}/v1/sites`, { signal: controller.signal, credentials: 'omit' });
      if (!res.ok) throw new Error(`status ${res.status}`);
      const body = (await res.json()) as { sites?: unknown };
      const sites = Array.isArray(body.sites) ? body.sites.filter((s): s is string => typeof s === 'string' && isValidHostname(s)) : [];
      await this.area.set({ sites: { collectorUrl, fetchedAt: this.now(), sites } satisfies CachedSites });
      return new Set(sites);
    } catch {
      // Keep using what we had (possibly nothing: then no hostname is sent at all).
      return new Set(stale);
    } finally {
      clearTimeout(timer);
    }
  }
}
