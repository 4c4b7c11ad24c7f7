/**
 * Child process for the query and scaling benchmarks (the embedded store allows one process per data
 * folder, and the collector needs the folder after us): fills a data folder with generated records up to
 * a target count, then measures the store directly — the API's queries, insert blocks, bytes on disk —
 * and prints one line `RESULT {json}`.
 *
 *   tsx bench/lib/store-worker.ts '{"dataDir": "...", "targetRows": 10000000, "rounds": 50, ...}'
 */
import { Readable } from 'node:stream';
import { loadDemoData } from '@tlsrum/collector/demo/bulk-load';
import { DEMO_AGENT } from '@tlsrum/collector/demo/profiles';
import { encodeRowsTsv, TSV_INSERT_QUERY } from '@tlsrum/collector/ingest/encode-rows';
import type { HandshakeRow } from '@tlsrum/collector/ingest/columns';
import { toRow } from '@tlsrum/collector/ingest/to-row';
import { openStore } from '@tlsrum/collector/store/clients';
import { closedPartitionsToMerge, compactClosedMonths } from '@tlsrum/collector/store/compaction';
import { migrate } from '@tlsrum/collector/store/migrate';
import { MIN_ROUNDS, QUERY_SPECS, TABLES, directSql } from './query-specs';
import type { Table } from '@tlsrum/collector/query/dimensions';
import { makeBenchBatch, rng } from './records';

export interface WorkerInput {
  dataDir: string;
  targetRows: number;
  /** End of the generated 30 days, epoch ms (hour-aligned, shared with the caller's API queries). */
  end: number;
  days: number;
  seed: number;
  /** Timed runs of each query on each table (0: no queries)... */
  rounds: number;
  /** ...or fewer, once a query/table has used this many seconds (at least MIN_ROUNDS runs each). */
  seriesBudgetS: number;
  /** Timed inserts of 10 000-row blocks per format (0: none). */
  insertRounds: number;
  /**
   * Merge the closed months (the rollups' and the what-if's client sample's) into one part each after
   * generating, as a running collector does within the hour (COMPACT_CLOSED_MONTHS): the store its API benches
   * read, as it stands once a month has ended.
   */
  compactClosedMonths?: boolean;
  /** Records per visit of a generated client (the demo generator's `visitRecords`; default 1). */
  visitRecords?: number;
}

export interface WorkerResult {
  rows: number;
  generatedRows: number;
  generateSeconds: number;
  /** Of generateSeconds: rolling the new records up into every rollup after they were written. */
  rollupSeconds: number;
  /** Merging the closed months (compactClosedMonths), after generating; 0 when not asked. */
  compactSeconds: number;
  /** The partitions that merge made one part each. */
  compactedPartitions: number;
  /** per "query/table": milliseconds of each timed run */
  queryMs: Record<string, number[]>;
  /**
   * per "query/rollup": the rollup's queries timed just before that merge, on the same store: what the merge
   * changes, measured in the same run. Empty when no merge was asked or no closed month was in several parts.
   */
  queryMsBeforeCompact: Record<string, number[]>;
  /** per format: µs per row of each timed insert */
  insertUsPerRow: Record<string, number[]>;
  disk: { table: string; rows: number; bytesOnDisk: number; uncompressed: number; parts: number }[];
}

const input = JSON.parse(process.argv[2]!) as WorkerInput;
const store = openStore({ dataDir: input.dataDir, clickhouse: null });

async function scalar(sql: string, params: Record<string, string> = {}): Promise<number> {
  const rows = await (
    await store.query.query({ query: sql, query_params: params, format: 'JSONEachRow' })
  ).json<{ n: number }>();
  return Number(rows[0]?.n ?? 0);
}

async function timeQueries(tables: readonly Table[] = TABLES): Promise<Record<string, number[]>> {
  const out: Record<string, number[]> = {};
  const from = input.end - input.days * 86_400_000;
  for (const spec of QUERY_SPECS) {
    for (const table of tables) {
      const { sql, params } = directSql(spec, table, from, input.end);
      const times: number[] = [];
      const started = performance.now();
      for (let i = 0; i < input.rounds + 2; i++) {
        if (times.length >= MIN_ROUNDS && performance.now() - started > input.seriesBudgetS * 1000) break;
        const t0 = performance.now();
        const rows = await (
          await store.query.query({ query: sql, query_params: params, format: 'JSONEachRow' })
        ).json();
        const ms = performance.now() - t0;
        if (!rows.length) throw new Error(`${spec.name} on ${table} returned no rows`);
        if (i >= 2) times.push(ms);
      }
      out[`${spec.name}/${table}`] = times;
    }
  }
  return out;
}

async function timeInserts(): Promise<Record<string, number[]>> {
  const r = rng(5);
  const now = input.end - 3_600_000;
  const base: HandshakeRow[] = [];
  while (base.length < 10_000) {
    const batch = makeBenchBatch(r, 20, now);
    for (const rec of batch.records)
      base.push(toRow(rec, { batch, country: 'DE', receivedAt: now, isRegisteredSite: () => false }));
  }
  const formats = {
    JSONEachRow: {
      query: 'INSERT INTO handshakes FORMAT JSONEachRow',
      encode: (rows: HandshakeRow[]) => rows.map((x) => JSON.stringify(x)).join('\n'),
    },
    TabSeparated: { query: TSV_INSERT_QUERY, encode: encodeRowsTsv },
  };
  const out: Record<string, number[]> = { JSONEachRow: [], TabSeparated: [] };
  let n = 0;
  for (let i = 0; i < input.insertRounds + 1; i++) {
    for (const [name, f] of Object.entries(formats)) {
      const receivedAt = Math.floor(now / 1000) + ++n; // every block differs: identical blocks are deduplicated
      const body = f.encode(base.map((x) => ({ ...x, receivedAt })));
      const t0 = performance.now();
      const result = await store.ingest.exec({
        query: f.query,
        values: Readable.from([Buffer.from(body)], { objectMode: false }),
        clickhouse_settings: { insert_deduplication_token: `probe-${input.seed}-${n}` },
      });
      for await (const _ of result.stream) void _;
      if (i > 0) out[name]!.push(((performance.now() - t0) * 1000) / base.length);
    }
  }
  return out;
}

async function main(): Promise<void> {
  await migrate(store.ingest);
  // Generated records only: the insert probes of earlier sizes add rows of their own.
  const before = await scalar('SELECT count() AS n FROM handshakes WHERE agentName = {agent:String}', {
    agent: DEMO_AGENT.name,
  });
  const missing = Math.max(0, input.targetRows - before);
  const t0 = performance.now();
  let rollupSeconds = 0;
  if (missing > 0) {
    // Each size adds its own records to the rollups, as inserts do, instead of rebuilding them from every record
    // stored: in bulk, each rollup's groups of the new records written once (collector/src/demo/bulk-load.ts).
    const load = await loadDemoData(store.ingest, {
      records: missing,
      days: input.days,
      end: input.end,
      seed: input.seed,
      visitRecords: input.visitRecords ?? 1,
    });
    if (!load.bulk) throw new Error('the store took the records through its views, not in bulk');
    rollupSeconds = load.rollupMs / 1000;
  }
  const generateSeconds = (performance.now() - t0) / 1000;
  // Background merges of the freshly written parts would slow the first queries down: let them finish
  // (at most a minute), so the direct figures are comparable with the API's, measured later.
  for (let i = 0; i < 60 && (await scalar('SELECT count() AS n FROM system.merges')) > 0; i++)
    await new Promise((r) => setTimeout(r, 1000));
  let compactSeconds = 0;
  let compactedPartitions = 0;
  let queryMsBeforeCompact: Record<string, number[]> = {};
  if (input.compactClosedMonths) {
    if (input.rounds > 0 && (await closedPartitionsToMerge(store.query)).length > 0)
      queryMsBeforeCompact = await timeQueries(['rollup']);
    const c0 = performance.now();
    const merged = await compactClosedMonths(store.query);
    compactSeconds = (performance.now() - c0) / 1000;
    compactedPartitions = merged.length;
    if (merged.length) console.log(`merged ${merged.length} closed partitions into one part each`);
  }
  const queryMs = input.rounds > 0 ? await timeQueries() : {};
  const insertUsPerRow = input.insertRounds > 0 ? await timeInserts() : {};
  const disk = await (
    await store.query.query({
      query: `SELECT table, sum(rows) AS rows, sum(bytes_on_disk) AS bytesOnDisk, sum(data_uncompressed_bytes) AS uncompressed, count() AS parts
              FROM system.parts WHERE active AND database = currentDatabase() AND table LIKE 'handshakes%' GROUP BY table ORDER BY table`,
      format: 'JSONEachRow',
    })
  ).json<WorkerResult['disk'][number]>();
  const result: WorkerResult = {
    rows: await scalar('SELECT count() AS n FROM handshakes'),
    generatedRows: missing,
    generateSeconds,
    rollupSeconds,
    compactSeconds,
    compactedPartitions,
    queryMs,
    queryMsBeforeCompact,
    insertUsPerRow,
    disk: disk.map((d) => ({
      table: d.table,
      rows: Number(d.rows),
      bytesOnDisk: Number(d.bytesOnDisk),
      uncompressed: Number(d.uncompressed),
      parts: Number(d.parts),
    })),
  };
  console.log(`RESULT ${JSON.stringify(result)}`);
}

main()
  .catch((err) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(() => store.close());
