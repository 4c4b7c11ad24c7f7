/**
 * The what-if answer for a site: the whole site and each region (country), each with its round-trip
 * accounting and the scenarios ranked by p75 saving, and every assumption stated. Regions with fewer
 * distinct clients than the small-cell threshold are returned as suppressed, without numbers.
 */
import type { ClickHouseClient } from '@clickhouse/client';
import type { WhatIfAnswer } from '@tlsrum/shared/query/schemas';
import { fewSites } from '../query/cells';
import {
  ASSUMPTIONS,
  GENERAL_ASSUMPTIONS,
  keepRegions,
  modelling,
  summarisingAll,
  summarisingRegion,
  type Connection,
  type Modelled,
} from './model';
import { backgroundQuery } from '../platform/store/query-pool';
import { probeCertFacts } from './profile';
import { runBetweenRequests, SLICE, type Work } from '../platform/work';
import {
  queryConnections,
  queryRegionClients,
  SAMPLE_HEADROOM,
  type RegionConnection,
  type WhatIfQuery,
} from './query';

/** Distinct clients among connections, per region. */
function* distinctClients(conns: readonly RegionConnection[]): Work<Map<string, number>> {
  const sets = new Map<string, Set<number>>();
  for (let i = 0; i < conns.length; i++) {
    if (i % SLICE === 0) yield;
    const c = conns[i]!;
    const set = sets.get(c.country);
    if (set) set.add(c.client);
    else sets.set(c.country, new Set([c.client]));
  }
  return new Map([...sets].map(([country, set]) => [country, set.size]));
}

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
  const sampled = conns.filter((c) => allowed.has(c.country));
  // A sample of clients even over the range holds few of a small region's: one with fewer than twice the
  // small-cell threshold sampled is read again whole (or, if those regions together hold more than `limit`,
  // at the sample rate their own total allows), so that its figures come from enough of its clients.
  const sampledClients = await runBetweenRequests(distinctClients(sampled));
  const few =
    SAMPLE_HEADROOM * q.limit < total
      ? [...allowed].filter((country) => (sampledClients.get(country) ?? 0) < 2 * minClients).sort()
      : [];
  const fewConnections = few.reduce((a, country) => a + clients.get(country)!.connections, 0);
  // Read again only when that at least doubles their sample rate: when most of the range is in such regions,
  // a second read would sample them about as thinly as the first did.
  const short = fewConnections <= total / 2 ? few : [];
  // Each connection is modelled once, with its own region's RTT; the whole and each region are then
  // summarised from the same per-connection figures (a region read again whole, from that read's). This is
  // synchronous work over up to `limit` connections: it pauses for the collector's other requests (platform/work.ts),
  // so a what-if never holds every other reader until it is done. For a reader, every region that may be
  // shown is modelled while the small ones are read again (the store reads in threads of its own), and only
  // the ones shown are kept: regions are modelled apart, so that gives what modelling the shown ones alone
  // would. A kept answer's refresh (background work) keeps to one thread: it reads, then models.
  const regionOf = (c: Connection) => (c as RegionConnection).country;
  const reread = () => (short.length ? queryConnections(client, q, fewConnections, short) : Promise.resolve([]));
  const model = () => runBetweenRequests(modelling(sampled, regionOf, profile));
  let modelledAllowed: Modelled;
  let refill: RegionConnection[];
  if (backgroundQuery.getStore() === true) {
    refill = await reread();
    modelledAllowed = await model();
  } else {
    const reading = reread();
    // A failed read is handled where it is awaited, after the modelling; until then it must not count as unhandled.
    reading.catch(() => {});
    modelledAllowed = await model();
    refill = await reading;
  }
  const regionClients = new Map([...sampledClients, ...(await runBetweenRequests(distinctClients(refill)))]);
  // Shown: regions of enough clients (and registered sites) over the range whose figures come from enough of
  // them. Only these count in the whole, so no suppressed region can be recovered by difference.
  const visible = new Set([...allowed].filter((country) => (regionClients.get(country) ?? 0) >= minClients));
  const shown = sampled.filter((c) => visible.has(c.country));
  const modelled = keepRegions(modelledAllowed, visible);
  const refilled = await runBetweenRequests(
    modelling(
      refill.filter((c) => visible.has(c.country)),
      regionOf,
      profile,
    ),
  );
  const totalClients = [...clients.values()].reduce((a, r) => a + r.clients, 0);
  const regions: WhatIfAnswer['regions'] = [];
  for (const [country, r] of [...clients].sort(
    (a, b) => b[1].connections - a[1].connections || a[0].localeCompare(b[0]),
  )) {
    if (!visible.has(country)) {
      regions.push({ country, suppressed: true as const });
      continue;
    }
    const result = await runBetweenRequests(summarisingRegion(short.includes(country) ? refilled : modelled, country));
    regions.push({ country, connections: r.connections, result });
  }
  // The whole site counts only regions that are shown, so no suppressed cell can be recovered by difference.
  const overallOk =
    visible.size > 0 && totalClients >= minClients && new Set(shown.map((c) => c.client)).size >= minClients;
  return {
    site: q.site,
    from: q.from,
    to: q.to,
    connections: shown.length,
    sampled: conns.length < total,
    ticketLifetimeHours: q.ticketLifetimeMs / 3_600_000,
    assumptions: { general: GENERAL_ASSUMPTIONS, scenarios: ASSUMPTIONS },
    overall: overallOk ? await runBetweenRequests(summarisingAll(modelled)) : null,
    ...(overallOk ? {} : { overallSuppressed: true as const }),
    regions,
    probe: probe?.used ?? null,
  };
}
