/**
 * The store: ClickHouse through the official client, either embedded (chDB, data in DATA_DIR) or a
 * server (CLICKHOUSE_URL). Two clients, because each serializes its calls: one for ingest, one for
 * queries, so a large insert never holds up a dashboard query (and the reverse).
 */
import { mkdirSync } from 'node:fs';
import { createClient, type ClickHouseClient, type ClickHouseSettings } from '@clickhouse/client';
import { drainPending } from 'chdb';
import { createChdbConnection } from 'chdb/connection';
import type { Config } from '../config';
import type { ClusterLayout } from './cluster';
import { withInlinedParams } from './inline-params';
import { QueryPool, type QueryPoolOptions } from './query-pool';

export interface Store {
  ingest: ClickHouseClient;
  /** The read side: a pool of clients with a bounded queue and per-query limits (query-pool.ts). */
  query: ClickHouseClient;
  queryPool: QueryPool;
  kind: 'embedded' | 'server';
  /** Set when the tables live on a ClickHouse cluster (Distributed `handshakes` over `handshakes_local`). */
  cluster: ClusterLayout | null;
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

/**
 * Settings of a bulk insert into the raw table (generated demo records): its materialized views (the
 * rollups) each work through the inserted block side by side instead of one after another. Not for the
 * collector's own inserts: their blocks are small and the collector's JavaScript keeps the other core busy
 * (`bench:ingest` measured no gain). The demo's collector keeps it for its ingest session once it has
 * generated its records (chDB keeps a query's settings for the session), which changes nothing there either.
 */
export const BULK_INSERT_SETTINGS: ClickHouseSettings = { parallel_view_processing: 1 };

/** What the read side gets when the caller does not say (tests, benches, command-line tools). */
export const DEFAULT_QUERY_POOL: QueryPoolOptions = { size: 2, queueMax: 64, timeoutMs: 30_000, maxMemoryBytes: 0 };

export function openStore(config: Pick<Config, 'dataDir' | 'clickhouse'> & { queryPool?: QueryPoolOptions }): Store {
  const poolOptions = config.queryPool ?? DEFAULT_QUERY_POOL;
  if (config.clickhouse) {
    const { url, username, password, database, cluster } = config.clickhouse;
    // On a cluster an insert into the Distributed table returns only once every shard has its rows, so
    // an insert that succeeded is stored (not queued on one node) and a retried one is deduplicated
    // by the shards' own replicated deduplication.
    const settings: ClickHouseSettings = cluster
      ? { ...SESSION_SETTINGS, insert_distributed_sync: 1 }
      : SESSION_SETTINGS;
    const make = () =>
      createClient({
        url,
        username,
        password,
        database,
        clickhouse_settings: settings,
        application: 'tlsrum-collector',
      });
    return clientPair(
      make,
      poolOptions,
      { kind: 'server', database, cluster: cluster ? { cluster, database } : null },
      closeBoth,
    );
  }
  mkdirSync(config.dataDir, { recursive: true });
  // createChdbConnection's return type is not the client's declared `connection` type (platform notes).
  // Parameters are written into the SQL: chDB runs queries with bound parameters one at a time
  // (inline-params.ts), which would make every reader wait for the slowest.
  const make = () =>
    withInlinedParams(
      createClient({
        connection: createChdbConnection({ path: config.dataDir }) as unknown as never,
        clickhouse_settings: SESSION_SETTINGS,
      }),
    );
  return clientPair(
    make,
    poolOptions,
    { kind: 'embedded', database: 'default', cluster: null },
    async (ingest, query) => {
      await closeBoth(ingest, query);
      // close() returns while a query of a background task (site refresh, alert evaluation) may still run
      // on a libuv thread; until it ends the engine refuses another data folder in this process.
      await drainPending();
    },
  );
}

/** One client for ingest and a pool for queries (each client serializes its calls), closed together. */
function clientPair(
  make: () => ClickHouseClient,
  poolOptions: QueryPoolOptions,
  info: Pick<Store, 'kind' | 'database' | 'cluster'>,
  close: (ingest: ClickHouseClient, query: ClickHouseClient) => Promise<void>,
): Store {
  const ingest = make();
  const queryPool = new QueryPool(make, poolOptions);
  const query = queryPool.asClient();
  return { ingest, query, queryPool, ...info, close: () => close(ingest, query) };
}

async function closeBoth(a: ClickHouseClient, b: ClickHouseClient): Promise<void> {
  await Promise.allSettled([a.close(), b.close()]);
}
