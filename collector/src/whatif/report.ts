/**
 * The what-if answer for a site: the whole site and each region (country), each with its round-trip
 * accounting and the scenarios ranked by p75 saving, and every assumption stated. Regions with fewer
 * distinct clients than the small-cell threshold are returned as suppressed, without numbers.
 */
import type { ClickHouseClient } from '@clickhouse/client';
import type { WhatIfAnswer } from '@tlsrum/shared/query/schemas';
import { fewSites } from '../query/cells';
import { ASSUMPTIONS, GENERAL_ASSUMPTIONS, model, summariseAll, summariseRegion } from './model';
import { probeCertFacts } from './profile';
import { queryConnections, queryRegionClients, type WhatIfQuery } from './query';

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

export async function whatIf(client: ClickHouseClient, q: WhatIfQuery, minClients: number): Promise<WhatIfAnswer> {
  const [clients, probe] = await Promise.all([
    queryRegionClients(client, q, minClients),
    probeCertFacts(client, q.site),
  ]);
  const total = [...clients.values()].reduce((a, r) => a + r.connections, 0);
  // The regions' counts size the sample: only as many clients as `limit` connections need are read.
  const conns = total > 0 ? await queryConnections(client, q, total) : [];
  const profile = probe?.profile ?? null;
  // Without a token, a region of fewer registered sites than MIN_SITES_PER_CELL is suppressed too (cells.ts).
  const minSites = q.site === null ? (q.minSites ?? 1) : 1;
  const allowed = new Set(
    [...clients].filter(([, r]) => r.clients >= minClients && !fewSites(r.sites, minSites)).map(([c]) => c),
  );
  const shown = conns.filter((c) => allowed.has(c.country));
  // Each connection is modelled once, with its own region's RTT; the whole and each region are then
  // summarised from the same per-connection figures.
  const modelled = model(shown, (c) => (c as (typeof shown)[number]).country, profile);
  const totalClients = [...clients.values()].reduce((a, r) => a + r.clients, 0);
  const regions: WhatIfAnswer['regions'] = [];
  for (const [country, r] of [...clients].sort(
    (a, b) => b[1].connections - a[1].connections || a[0].localeCompare(b[0]),
  )) {
    if (!allowed.has(country)) {
      regions.push({ country, suppressed: true as const });
      continue;
    }
    // Summaries are synchronous work over up to `limit` connections: between regions the collector answers
    // the requests that arrived meanwhile, so a what-if never holds every other reader until it is done.
    await yieldToEventLoop();
    regions.push({ country, connections: r.connections, result: summariseRegion(modelled, country) });
  }
  await yieldToEventLoop();
  // The whole site counts only regions that are shown, so no suppressed cell can be recovered by difference.
  const overallOk = allowed.size > 0 && totalClients >= minClients;
  return {
    site: q.site,
    from: q.from,
    to: q.to,
    connections: shown.length,
    sampled: conns.length < total,
    ticketLifetimeHours: q.ticketLifetimeMs / 3_600_000,
    assumptions: { general: GENERAL_ASSUMPTIONS, scenarios: ASSUMPTIONS },
    overall: overallOk ? summariseAll(modelled) : null,
    ...(overallOk ? {} : { overallSuppressed: true as const }),
    regions,
    probe: probe?.used ?? null,
  };
}
