/**
 * The store: ClickHouse through the official client, either embedded (chDB, data in DATA_DIR) or a
 * server (CLICKHOUSE_URL). Two clients, because each serializes its calls: one for ingest, one for
 * queries, so a large insert never holds up a dashboard query (and the reverse).
 */
import { mkdirSync } from 'node:fs';
import { createClient, type ClickHouseClient, type ClickHouseSettings } from '@clickhouse/client';
import { createChdbConnection } from 'chdb/connection';
import type { Config } from '../config';

export interface Store {
  ingest: ClickHouseClient;
  query: ClickHouseClient;
  kind: 'embedded' | 'server';
  /** Database holding the tables (server); the embedded engine uses its default database. */
  database: string;
  close(): Promise<void>;
}

/**
 * Settings applied to every session so both store kinds behave alike: 64-bit integers as JSON numbers
 * (a server quotes them by default, chDB does not), UTC everywhere.
 */
export const SESSION_SETTINGS: ClickHouseSettings = {
  output_format_json_quote_64bit_integers: 0,
  date_time_input_format: 'best_effort',
};

export function openStore(config: Pick<Config, 'dataDir' | 'clickhouse'>): Store {
  if (config.clickhouse) {
    const { url, username, password, database } = config.clickhouse;
    const make = () =>
      createClient({ url, username, password, database, clickhouse_settings: SESSION_SETTINGS, application: 'tlsrum-collector' });
    const ingest = make();
    const query = make();
    return { ingest, query, kind: 'server', database, close: () => closeBoth(ingest, query) };
  }
  mkdirSync(config.dataDir, { recursive: true });
  // createChdbConnection's return type is not the client's declared `connection` type (platform notes).
  const make = () =>
    createClient({
      connection: createChdbConnection({ path: config.dataDir }) as unknown as never,
      clickhouse_settings: SESSION_SETTINGS,
    });
  const ingest = make();
  const query = make();
  return { ingest, query, kind: 'embedded', database: 'default', close: () => closeBoth(ingest, query) };
}

async function closeBoth(a: ClickHouseClient, b: ClickHouseClient): Promise<void> {
  await Promise.allSettled([a.close(), b.close()]);
}
