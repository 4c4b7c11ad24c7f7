/**
 * The latest probe's crypto facts per registered site (shared/src/probe-crypto.ts), held in memory for the
 * ingest route: a record of a registered site that carries no crypto fact of its own (Chromium) is stored
 * with these, marked cryptoSource 'probe' (ingest/columns.ts). Refreshed at start and after every probe
 * cycle; only the site's own hostname counts (extra hostnames serve other resources).
 */
import type { ClickHouseClient } from '@clickhouse/client';
import { cryptoFactsFromProbe, type ProbeCryptoFacts } from '@tlsrum/shared';
import { latestProbe } from './store';

export class SiteCryptoFacts {
  private bySite = new Map<string, ProbeCryptoFacts>();

  /** The facts for a site, or null when it has no usable probe. */
  readonly get = (site: string): ProbeCryptoFacts | null => this.bySite.get(site) ?? null;

  async refresh(client: ClickHouseClient, sites: readonly string[]): Promise<void> {
    const next = new Map<string, ProbeCryptoFacts>();
    for (const site of sites) {
      const p = await latestProbe(client, site, site);
      const facts = p ? cryptoFactsFromProbe(p.result) : null;
      if (facts) next.set(site, facts);
    }
    this.bySite = next;
  }
}
