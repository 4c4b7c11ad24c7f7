/**
 * What a site profile is built from, read from the store: the probe results of each registered hostname
 * (`site_probes`, the hostname itself — the records of a site are connections to that hostname) within the
 * probe age limit, and the counts of that site's TCP records whose TLS version or resumption was reported
 * (observed by the browser or the runner, or by the site's Server-Timing) over the profile window.
 * Implausible records count for nothing, as everywhere.
 */
import type { ClickHouseClient } from '@clickhouse/client';
import type { ProbeResult, ProfileObservations, TlsVersion } from '@tlsrum/shared';

export interface ProfileSources {
  probes: Map<string, { at: number; result: ProbeResult }[]>;
  observations: Map<string, ProfileObservations>;
}

/** Only evidence: never a value the classifier inferred or took from a profile (that would feed on itself). */
const REPORTED = "('observed', 'server-timing')";

export async function readProfileSources(
  client: ClickHouseClient,
  sites: readonly string[],
  now: number,
  probeAgeMs: number,
  windowMs: number,
): Promise<ProfileSources> {
  const probes = new Map<string, { at: number; result: ProbeResult }[]>();
  const observations = new Map<string, ProfileObservations>();
  if (sites.length === 0) return { probes, observations };

  const probeRows = await (
    await client.query({
      query: `SELECT site, toUnixTimestamp64Milli(probedAt) AS atMs, result FROM site_probes
              WHERE site IN {sites:Array(String)} AND hostname = site
                AND probedAt >= fromUnixTimestamp64Milli({from:Int64}) AND probedAt <= fromUnixTimestamp64Milli({now:Int64})
              ORDER BY site, probedAt DESC LIMIT 50 BY site`,
      query_params: { sites, from: now - probeAgeMs, now },
      format: 'JSONEachRow',
      clickhouse_settings: { output_format_json_quote_64bit_integers: 0 },
    })
  ).json<{ site: string; atMs: number; result: string }>();
  for (const r of probeRows) {
    const list = probes.get(r.site) ?? [];
    list.push({ at: Number(r.atMs), result: JSON.parse(r.result) as ProbeResult });
    probes.set(r.site, list);
  }

  const counts = await (
    await client.query({
      query: `SELECT site, tlsVersion, tlsVersionSource IN ${REPORTED} AS versionReported,
                     resumed, resumedSource IN ${REPORTED} AS resumedReported, count() AS n
              FROM handshakes
              WHERE site IN {sites:Array(String)} AND ts >= fromUnixTimestamp64Milli({from:Int64}) AND transport = 'tcp'
                AND implausible = 0 AND (tlsVersionSource IN ${REPORTED} OR resumedSource IN ${REPORTED})
              GROUP BY site, tlsVersion, versionReported, resumed, resumedReported`,
      query_params: { sites, from: now - windowMs },
      format: 'JSONEachRow',
      clickhouse_settings: { output_format_json_quote_64bit_integers: 0 },
    })
  ).json<{
    site: string;
    tlsVersion: TlsVersion | null;
    versionReported: number | boolean;
    resumed: boolean | null;
    resumedReported: number | boolean;
    n: number;
  }>();
  for (const c of counts) {
    const o = observations.get(c.site) ?? { versions: {}, resumed: {} };
    const n = Number(c.n);
    if (c.tlsVersion && Number(c.versionReported)) o.versions[c.tlsVersion] = (o.versions[c.tlsVersion] ?? 0) + n;
    // Resumption counts per version: only where the version is known at all.
    if (c.tlsVersion && Number(c.resumedReported) && typeof c.resumed === 'boolean') {
      const per = (o.resumed[c.tlsVersion] ??= { yes: 0, no: 0 });
      if (c.resumed) per.yes += n;
      else per.no += n;
    }
    observations.set(c.site, o);
  }
  return { probes, observations };
}
