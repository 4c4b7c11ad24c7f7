import type { ClickHouseClient } from '@clickhouse/client';

export interface SiteRow {
  hostname: string;
  /** Hex SHA-256 of the site's read token ('' before one was issued). */
  tokenHash: string;
}

export async function listSiteRows(client: ClickHouseClient): Promise<SiteRow[]> {
  return (
    await client.query({
      query: 'SELECT hostname, tokenHash FROM sites FINAL WHERE deleted = 0 ORDER BY hostname',
      format: 'JSONEachRow',
    })
  ).json<SiteRow>();
}

export async function saveSite(
  client: ClickHouseClient,
  hostname: string,
  deleted: boolean,
  tokenHash = '',
): Promise<void> {
  await client.insert({
    table: 'sites',
    values: [{ hostname, deleted: deleted ? 1 : 0, version: Date.now(), tokenHash }],
    format: 'JSONEachRow',
  });
}
