/**
 * The rollups' closed months, and the what-if's client sample's, each merged into one part. A rollup query
 * reads at least one granule of every part of every month it spans, most of it other cuts' rows: a month left
 * in the five or six parts the store's own merges settle at made the dashboard's small questions (the stack by
 * mode, the map) read about 40 times the rows they need, and cost 2–3× what the same rows cost in one part.
 * The what-if reads a range of its client sample's sort key from every part: at 10 M records, the dashboard's
 * what-if read its connections over 30 days in 150 ms with the closed month in one part, 200 ms in five.
 * A month no record can still reach (older than what ingest accepts, with a margin for a spool drained after
 * an outage) gets no more rows, so it is merged once (`OPTIMIZE … FINAL`: a rollup's rows of equal keys
 * become one, the same figures; the client sample keeps every row) and stays merged; a row that still
 * reaches it later makes it a candidate again.
 *
 * The merge runs as background work of the read pool (query-pool.ts): one slot at most, after any reader's
 * query. On a cluster each shard's local tables are merged by its own server, or by the operator
 * (docs/cluster.md): the collector leaves them alone.
 */
import type { FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import type { ClickHouseClient } from '@clickhouse/client';
import { CLOCK_DRIFT_MS, MAX_RECORD_QUEUE_MS } from '@tlsrum/shared';
import { CLIENT_SAMPLE_TABLE, rollupViewsInForce } from './migrate';
import { backgroundQuery } from './query-pool';
import { repeatAfterReady } from './repeat-after-ready';

/**
 * The tables merged: those the rollups' views write (every cut and grain the query path reads) and the
 * what-if's client sample. Not the raw table: its months are the store's largest (a merge would rewrite
 * gigabytes), and few readers reach a closed month there (a range not aligned to the hour, the monthly dataset).
 */
export const COMPACTED_TABLES: readonly string[] = [
  ...new Set(rollupViewsInForce().map((v) => v.target)),
  CLIENT_SAMPLE_TABLE,
];

/**
 * A month is closed this long after its end: what ingest still accepts (24 h from the collector's clock, an
 * hour of drift) and a day for a spool drained late.
 */
export const CLOSED_AFTER_MS = MAX_RECORD_QUEUE_MS + CLOCK_DRIFT_MS + 86_400_000;

/**
 * How often the collector looks for a closed month in more than one part; also once a minute after the store
 * is ready.
 */
export const COMPACTION_CHECK_MS = 3_600_000;
const FIRST_CHECK_MS = 60_000;

export interface ClosedPartition {
  table: string;
  /** The store's partition id (`202611` for November 2026). */
  partition: string;
  parts: number;
}

/**
 * The partitions of COMPACTED_TABLES in more than one part whose month ended at least CLOSED_AFTER_MS before
 * `now`. A part knows the first and last day (or hour) of its rows, not their times: the month's end bounds
 * them all.
 */
export async function closedPartitionsToMerge(client: ClickHouseClient, now = Date.now()): Promise<ClosedPartition[]> {
  const rs = await client.query({
    query: `SELECT table, partition_id AS partition, count() AS parts
FROM system.parts
WHERE database = currentDatabase() AND active AND table IN {tables:Array(String)}
GROUP BY table, partition_id
HAVING parts > 1 AND min(min_time) > toDateTime(0)
  AND toStartOfMonth(max(max_time), 'UTC') + INTERVAL 1 MONTH <= toDate(toDateTime({closedBefore:Int64}, 'UTC'), 'UTC')
ORDER BY table, partition`,
    query_params: { tables: COMPACTED_TABLES, closedBefore: Math.floor((now - CLOSED_AFTER_MS) / 1000) },
    format: 'JSONEachRow',
  });
  return (await rs.json<{ table: string; partition: string; parts: number | string }>()).map((r) => ({
    table: r.table,
    partition: r.partition,
    parts: Number(r.parts),
  }));
}

/** Merges each closed partition of COMPACTED_TABLES that is in more than one part into one; returns those it merged. */
export async function compactClosedMonths(client: ClickHouseClient, now = Date.now()): Promise<ClosedPartition[]> {
  const due = await closedPartitionsToMerge(client, now);
  for (const p of due) {
    // Names and ids come from the store's own catalogue, checked again before they are written into the SQL.
    if (!COMPACTED_TABLES.includes(p.table) || !/^[0-9]+$/.test(p.partition))
      throw new Error(`not a partition merged once closed: ${p.table} ${p.partition}`);
    await client.command({ query: `OPTIMIZE TABLE ${p.table} PARTITION ID '${p.partition}' FINAL` });
  }
  return due;
}

/** The hourly check, on the embedded store and a single server (COMPACT_CLOSED_MONTHS). */
const compactionPlugin: FastifyPluginAsync = async (app) => {
  if (!app.config.compactClosedMonths || app.store.cluster) return;
  const check = async () => {
    const started = performance.now();
    try {
      const merged = await backgroundQuery.run(true, () => compactClosedMonths(app.store.query));
      if (merged.length)
        app.log.info(
          {
            merged: merged.map((p) => `${p.table} ${p.partition} (${p.parts} parts)`),
            ms: Math.round(performance.now() - started),
          },
          'closed months merged',
        );
    } catch (err) {
      app.log.warn(
        { err: { message: (err as Error).message } },
        'closed months not merged; trying again at the next check',
      );
    }
  };
  repeatAfterReady(app, { firstMs: FIRST_CHECK_MS, everyMs: COMPACTION_CHECK_MS, run: check });
};

export default fp(compactionPlugin, { name: 'compaction', dependencies: ['store'] });
