/**
 * A time series' closed buckets, worked out once. A series' cell of one hour (or day) is that bucket's rows
 * alone — its records, clients, percentiles, mixes and whether it is shown — whatever the range around it:
 * the store groups by the bucket first, and every rule of a cell (cells.ts) reads the cell's own rows. A
 * bucket that ended CLOSED_AFTER_MS ago gets no more rows (what ingest still accepts, an hour of drift and a
 * day for a spool drained late: platform/store/compaction.ts), so its cells, once worked out, are its cells
 * for good. A series asks the store only for the buckets it does not hold yet and for the open ones: the last
 * 30 days by hour reads its last two days and the hours closed since it was last asked, not 720 hours.
 *
 * Kept only from the rollups over whole buckets: the raw table's hourly cells cap each client per cell at
 * read time and answer ranges to the millisecond. Kept by everything a cell depends on but the range
 * (scope, thresholds, filters, dimensions, bucket, metrics), with the bucket's start; a bucket with no cells
 * is kept as such. Rows that still reach a closed bucket — a spool drained after a long outage — drop
 * everything kept (`noteStored`, called for each stored segment); another writer's (a cluster's other
 * collectors) are bounded by MAX_AGE_MS, after which a bucket is worked out again. Memory is bounded in
 * bytes (CLOSED_BUCKET_CACHE_BYTES), the oldest dropped first.
 */
import type { FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import type { ClickHouseClient } from '@clickhouse/client';
import { CLOSED_AFTER_MS } from '../platform/store/compaction';
import { scrapedCounter, scrapedGauge } from '../platform/metrics/scraped';
import type { SegmentContent } from '../ingest/spool/format';
import { buildCellSql, queryCells, type Bucket, type Cell, type CellAnswer, type CellQuery } from './cells';
import { RAW } from './sources';

const HOUR = 3_600_000;
export const BUCKET_MS: Record<Bucket, number> = { hour: HOUR, day: 24 * HOUR };

/** A kept bucket is worked out again after this long: the bound on rows another collector stores late. */
export const MAX_AGE_MS = HOUR;

/** The end of the closed buckets of this size at `now`: every bucket ending by then is closed. */
export const closedUntil = (now: number, bucket: Bucket): number =>
  Math.floor((now - CLOSED_AFTER_MS) / BUCKET_MS[bucket]) * BUCKET_MS[bucket];

interface Kept {
  cells: Cell[];
  at: number;
  bytes: number;
}

export class ClosedBuckets {
  /** Insertion order is age order: the oldest bucket is first. */
  private readonly entries = new Map<string, Kept>();
  private bytes = 0;
  /** Buckets answered from memory (kept) and from the store (read): for /metrics and tests. */
  readonly counts = { kept: 0, read: 0 };

  constructor(
    private readonly maxBytes: number,
    private readonly now: () => number = Date.now,
  ) {}

  get enabled(): boolean {
    return this.maxBytes > 0;
  }

  get heldBytes(): number {
    return this.bytes;
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: string): Cell[] | undefined {
    const kept = this.entries.get(key);
    if (!kept) return undefined;
    if (this.now() - kept.at < MAX_AGE_MS) return kept.cells;
    this.delete(key);
    return undefined;
  }

  set(key: string, cells: Cell[]): void {
    if (!this.enabled) return;
    // Near enough: two bytes per character of the key and of the cells as JSON (V8's widest strings).
    const bytes = 2 * (key.length + JSON.stringify(cells).length);
    if (bytes > this.maxBytes) return;
    this.delete(key);
    this.entries.set(key, { cells, at: this.now(), bytes });
    this.bytes += bytes;
    for (const oldest of this.entries.keys()) {
      if (this.bytes <= this.maxBytes) break;
      this.delete(oldest);
    }
  }

  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }

  /**
   * A segment just stored: if any of its rows is older than the closed hours' end, the buckets kept may
   * lack it, and everything kept is dropped. A segment whose layout names no `ts` column (the oldest spool
   * format) is taken as late.
   */
  noteStored(content: Pick<SegmentContent, 'format' | 'columns' | 'rows'>): void {
    if (this.entries.size === 0) return;
    const edgeSeconds = closedUntil(this.now(), 'hour') / 1000;
    const at = content.format === 'TabSeparated' ? (content.columns?.indexOf('ts') ?? -1) : -1;
    if (at < 0 || oldestSeconds(content.rows, at) < edgeSeconds) this.clear();
  }

  private delete(key: string): void {
    const kept = this.entries.get(key);
    if (!kept) return;
    this.entries.delete(key);
    this.bytes -= kept.bytes;
  }
}

/**
 * The smallest value of TabSeparated column `at` (DateTime64 written as `seconds.mmm`) over the lines of `rows`; a
 * line without that column is passed over, an empty value counts as 0 (older than any bucket).
 */
function oldestSeconds(rows: string, at: number): number {
  let oldest = Infinity;
  for (let line = 0; line < rows.length;) {
    let end = rows.indexOf('\n', line);
    if (end < 0) end = rows.length;
    let start = line;
    for (let i = 0; i < at && start >= 0; i++) {
      const tab = rows.indexOf('\t', start);
      start = tab >= 0 && tab < end ? tab + 1 : -1;
    }
    if (start >= 0) {
      const tab = rows.indexOf('\t', start);
      const seconds = Number(rows.slice(start, tab >= 0 && tab < end ? tab : end));
      if (seconds < oldest) oldest = seconds;
    }
    line = end + 1;
  }
  return oldest;
}

/**
 * A time series' cells, its closed buckets from `kept` where it holds them. Reads the store for the span from
 * the first closed bucket it lacks to the last (a range moving by the hour lacks its newest closed hour
 * only) and for the open buckets, and keeps each closed bucket read. Answers exactly as `queryCells` over the
 * whole range: the same cells in the same order, cut at the same limit.
 */
export async function querySeriesCells(
  client: ClickHouseClient,
  q: CellQuery & { bucket: Bucket },
  minClients: number,
  kept: ClosedBuckets,
  now = Date.now(),
): Promise<CellAnswer> {
  const size = BUCKET_MS[q.bucket];
  const { from, to } = q.filters;
  const edge = Math.min(to, closedUntil(now, q.bucket));
  const whole = () => queryCells(client, q, minClients);
  if (!kept.enabled || q.table !== 'rollup' || q.filters.ownSynthetic || from % size !== 0 || edge <= from)
    return whole();
  const part = (a: number, b: number): CellQuery => ({ ...q, filters: { ...q.filters, from: a, to: b } });
  // Where the raw table answers (no cut holds the question, or a threshold the rollups cannot count to), it
  // answers the whole range: its cells are capped at read time, not as the rollups' are.
  if ([q, part(from, edge), part(edge, to)].some((p) => p.filters.from < p.filters.to && readsRaw(p, minClients)))
    return whole();

  const context = JSON.stringify([
    q.filters.site,
    q.filters.minSites ?? 1,
    q.filters.clientCap,
    minClients,
    Object.entries(q.filters)
      .filter(([k]) => !['from', 'to', 'site', 'minSites', 'clientCap'].includes(k))
      .sort(),
    q.dimensions,
    q.bucket,
    q.metrics,
  ]);
  const keyOf = (t: number) => `${context}@${t}`;
  const held = new Map<number, Cell[]>();
  let first = -1;
  let last = -1;
  for (let t = from; t < edge; t += size) {
    const cells = kept.get(keyOf(t));
    if (cells) held.set(t, cells);
    else {
      if (first < 0) first = t;
      last = t;
    }
  }
  const [missing, open] = await Promise.all([
    first >= 0 ? queryCells(client, part(first, last + size), minClients) : null,
    edge < to ? queryCells(client, part(edge, to), minClients) : null,
  ]);
  // A cut answer may lack its last bucket's later cells: the whole range is asked again, as it would have been.
  if (missing?.truncated) return whole();
  kept.counts.kept += held.size;
  if (missing) {
    kept.counts.read += (last + size - first) / size;
    const read = new Map<number, Cell[]>();
    for (const c of missing.cells) {
      const bucket = read.get(c.t!);
      if (bucket) bucket.push(c);
      else read.set(c.t!, [c]);
    }
    for (let t = first; t <= last; t += size) {
      const cells = read.get(t) ?? [];
      held.set(t, cells);
      kept.set(keyOf(t), cells);
    }
  }
  const cells: Cell[] = [];
  for (let t = from; t < edge; t += size) cells.push(...held.get(t)!);
  if (open) cells.push(...open.cells);
  const truncated = cells.length > q.limit || open?.truncated === true;
  return { cells: cells.slice(0, q.limit), truncated, table: 'rollup' };
}

function readsRaw(q: CellQuery, minClients: number): boolean {
  return buildCellSql(q, minClients).readTable === RAW;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The time series' closed buckets kept (CLOSED_BUCKET_CACHE_BYTES). */
    closedBuckets: ClosedBuckets;
  }
}

const closedBucketsPlugin: FastifyPluginAsync = async (app) => {
  const kept = new ClosedBuckets(app.config.closedBucketCacheBytes);
  app.decorate('closedBuckets', kept);
  scrapedCounter(app.registry, {
    name: 'tlsrum_closed_buckets_total',
    help: 'Closed buckets of time series answered from the ones kept (kept) or read from the store (read); CLOSED_BUCKET_CACHE_BYTES.',
    labelNames: ['result'],
    read: () => [
      [{ result: 'kept' }, kept.counts.kept],
      [{ result: 'read' }, kept.counts.read],
    ],
  });
  scrapedGauge(app.registry, {
    name: 'tlsrum_closed_buckets_bytes',
    help: 'Memory held by the closed buckets of time series kept (at most CLOSED_BUCKET_CACHE_BYTES).',
    read: () => kept.heldBytes,
  });
};

export default fp(closedBucketsPlugin, { name: 'closed-buckets', dependencies: ['metrics'] });
