/**
 * The probe history in ClickHouse (`site_probes`, migration 0008) and the extra hostnames registered for
 * probing (`probe_targets`). The stored `result` is the contract JSON; identities sit beside it.
 */
import type { ClickHouseClient } from '@clickhouse/client';
import type { ProbeResult } from '@tlsrum/shared';
import type { ProbeSnapshot } from './changes';
import type { ProbeOutcome } from '@tlsrum/probe';

export interface StoredProbe extends ProbeSnapshot {
  site: string;
  hostname: string;
}

interface ProbeRow {
  site: string;
  hostname: string;
  atMs: number;
  result: string;
  leafSpkiSha256: string;
  chainSha256: string;
}

export async function insertProbes(
  client: ClickHouseClient,
  rows: { site: string; hostname: string; at: number; outcome: ProbeOutcome }[],
): Promise<void> {
  if (rows.length === 0) return;
  await client.insert({
    table: 'site_probes',
    values: rows.map(({ site, hostname, at, outcome }) => ({
      site,
      hostname,
      probedAt: new Date(at).toISOString(),
      ok: outcome.result.errors.length === 0 ? 1 : 0,
      result: JSON.stringify(outcome.result),
      leafSpkiSha256: outcome.identity.leafSpkiSha256 ?? '',
      chainSha256: outcome.identity.chainSha256 ?? '',
    })),
    format: 'JSONEachRow',
    clickhouse_settings: { date_time_input_format: 'best_effort' },
  });
}

const fromRow = (r: ProbeRow): StoredProbe => ({
  site: r.site,
  hostname: r.hostname,
  at: Number(r.atMs),
  result: JSON.parse(r.result) as ProbeResult,
  identity: { leafSpkiSha256: r.leafSpkiSha256 || null, chainSha256: r.chainSha256 || null },
});

/** A site's probes (every hostname) in [from, to), oldest first, at most `limit`. */
export async function listProbes(
  client: ClickHouseClient,
  site: string,
  from: number,
  to: number,
  limit = 5000,
): Promise<StoredProbe[]> {
  const rs = await client.query({
    query: `SELECT site, hostname, toUnixTimestamp64Milli(probedAt) AS atMs, result, leafSpkiSha256, chainSha256
            FROM site_probes
            WHERE site = {site:String} AND probedAt >= fromUnixTimestamp64Milli({from:Int64}) AND probedAt < fromUnixTimestamp64Milli({to:Int64})
            ORDER BY site_probes.probedAt DESC LIMIT {limit:UInt32}`,
    query_params: { site, from, to, limit },
    format: 'JSONEachRow',
    clickhouse_settings: { output_format_json_quote_64bit_integers: 0 },
  });
  return (await rs.json<ProbeRow>()).map(fromRow).reverse();
}

export interface ProbeTarget {
  site: string;
  hostname: string;
}

export async function listProbeTargets(client: ClickHouseClient): Promise<ProbeTarget[]> {
  const rs = await client.query({
    query: 'SELECT site, hostname FROM probe_targets FINAL WHERE deleted = 0 ORDER BY site, hostname',
    format: 'JSONEachRow',
  });
  return rs.json<ProbeTarget>();
}

export async function saveProbeTarget(
  client: ClickHouseClient,
  site: string,
  hostname: string,
  deleted: boolean,
): Promise<void> {
  await client.insert({
    table: 'probe_targets',
    values: [{ site, hostname, deleted: deleted ? 1 : 0, version: Date.now() }],
    format: 'JSONEachRow',
  });
}

/** The newest probe of one hostname of a site, if any. */
export async function latestProbe(
  client: ClickHouseClient,
  site: string,
  hostname: string,
): Promise<StoredProbe | null> {
  const rs = await client.query({
    query: `SELECT site, hostname, toUnixTimestamp64Milli(probedAt) AS atMs, result, leafSpkiSha256, chainSha256
            FROM site_probes WHERE site = {site:String} AND hostname = {hostname:String}
            ORDER BY site_probes.probedAt DESC LIMIT 1`,
    query_params: { site, hostname },
    format: 'JSONEachRow',
  });
  const row = (await rs.json<ProbeRow>())[0];
  return row ? fromRow(row) : null;
}
