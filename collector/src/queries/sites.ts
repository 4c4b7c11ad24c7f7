import type { ClickHouseClient } from '@clickhouse/client';

export async function listSites(client: ClickHouseClient): Promise<string[]> {
  const rows = await (
    await client.query({
      query: 'SELECT hostname FROM sites FINAL WHERE deleted = 0 ORDER BY hostname',
      format: 'JSONEachRow',
    })
  ).json<{ hostname: string }>();
  return rows.map((r) => r.hostname);
}

export async function saveSite(client: ClickHouseClient, hostname: string, deleted: boolean): Promise<void> {
  await client.insert({
    table: 'sites',
    values: [{ hostname, deleted: deleted ? 1 : 0, version: Date.now() }],
    format: 'JSONEachRow',
  });
}
