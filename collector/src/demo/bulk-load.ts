/**
 * Generated records in bulk, for the demo's first run and the benches' stores: the rollups filled the way the
 * migration runner fills a new one, not through their views. Through the views every insert of generated records
 * rolls up each of its blocks on its own (a block of 65 000 records spread over a month writes nearly every group
 * of every rollup again), each histogram counted one record at a time (query/histogram.ts); here each rollup's
 * groups are written once, from its view's SELECT over a few whole days of records at a time with sorted-bucket
 * histograms (`rawRowsSelect`, platform/store/migrate.ts). The demo's 1.2 M records: 2.7 times faster on two cores.
 *
 * The records go into a copy of the raw table that no view reads, each rollup's rows into a copy of the rollup;
 * when every copy is filled, their partitions are attached to the real tables, and the copies dropped. A run
 * stopped before that leaves the real tables as they were (the next run drops the copies and starts again), so
 * the rollups never count records the raw table lacks. For a fully migrated store without a cluster (whose
 * shards would each need their own copies): any other store gets the records through its views
 * (`generateDemoData`).
 */
import type { ClickHouseClient } from '@clickhouse/client';
import {
  attachPartitions,
  dayRuns,
  loadMigrations,
  rawRowsSelect,
  rawTableReads,
  viewsInForce,
  type MaterializedView,
} from '../platform/store/migrate';
import { generateDemoData, type DemoOptions } from './generate';

/** The copy of the raw table the records are generated into; each rollup's copy is its name with this suffix. */
const RAW_COPY = 'handshakes_bulk_load';
const COPY_SUFFIX = '_bulk_load';

export interface BulkLoad {
  records: number;
  /** The time the rollups took (the views' SELECTs over the records), ms; 0 when loaded through the views. */
  rollupMs: number;
  /** Whether the records were loaded in bulk (false: through the views). */
  bulk: boolean;
}

export interface LoadOptions extends Omit<DemoOptions, 'table' | 'onProgress'> {
  /** The store is a cluster's: through the views. */
  cluster?: boolean;
  /** The share of the work done, 0 to 1: generating the records, then each rollup. */
  onProgress?: (share: number) => void;
}

/** Generates `opts.records` records into the raw table (generateDemoData's options) and fills every rollup with them. */
export async function loadDemoData(client: ClickHouseClient, opts: LoadOptions): Promise<BulkLoad> {
  const { cluster, onProgress, ...generate } = opts;
  const views = cluster ? null : await bulkViews(client);
  if (!views) {
    const records = await generateDemoData(client, { ...generate, onProgress: (d, n) => onProgress?.(d / n) });
    return { records, rollupMs: 0, bulk: false };
  }
  // Generating is about a twentieth of the work (the demo's records: 5 s of 133), each rollup a share of the rest.
  const GENERATE = 0.05;
  const rolledUp = (i: number) => onProgress?.(GENERATE + ((1 - GENERATE) * i) / views.length);
  const drop = (t: string) => client.command({ query: `DROP TABLE IF EXISTS ${t}` });
  // Copies a stopped run left behind.
  for (const t of [RAW_COPY, ...views.map((v) => v.target + COPY_SUFFIX)]) await drop(t);
  await client.command({ query: `CREATE TABLE ${RAW_COPY} AS handshakes` });
  const records = await generateDemoData(client, {
    chunk: 1_000_000,
    ...generate,
    table: RAW_COPY,
    onProgress: (d, n) => onProgress?.((GENERATE * d) / n),
  });
  const started = performance.now();
  const runs = await dayRuns(client, RAW_COPY);
  for (const [i, v] of views.entries()) {
    await client.command({ query: `CREATE TABLE ${v.target + COPY_SUFFIX} AS ${v.target}` });
    for (const run of runs)
      await client.command({ query: `INSERT INTO ${v.target + COPY_SUFFIX} ${rawRowsSelect(v, RAW_COPY, run)}` });
    rolledUp(i + 1);
  }
  const rollupMs = performance.now() - started;
  for (const v of views) await attachPartitions(client, v.target + COPY_SUFFIX, v.target);
  await attachPartitions(client, RAW_COPY, 'handshakes');
  for (const t of [RAW_COPY, ...views.map((v) => v.target + COPY_SUFFIX)]) await drop(t);
  return { records, rollupMs, bulk: true };
}

/**
 * The views the records must reach, when the store has applied every migration (the views in force are then the
 * store's own) and each of them reads the raw table once; else null.
 */
async function bulkViews(client: ClickHouseClient): Promise<MaterializedView[] | null> {
  const applied = new Set(
    (
      await (
        await client.query({ query: 'SELECT version FROM schema_migrations FINAL', format: 'JSONEachRow' })
      ).json<{ version: number | string }>()
    ).map((r) => Number(r.version)),
  );
  if (!loadMigrations().every((m) => applied.has(m.version))) return null;
  const views = viewsInForce();
  return views.every((v) => rawTableReads(v) === 1) ? views : null;
}
