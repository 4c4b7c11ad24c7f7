/**
 * The per-client cap, decided as records arrive: of each client token, UTC day and site, the records after
 * the first K are marked `capped`. The row is stored like any other (K can change, and an operator can see
 * what was marked); the figures of whole days leave it out — the rollups' views and the raw table's daily
 * cells alike (queries/counted.ts) — so every cell of a site's daily figures holds at most K records of
 * one client a day, and both paths count the same rows. Deciding it here rather than in each query keeps
 * the cap's query cost to one column (BENCHMARKS.md, 2026-11-24 "The per-client cap decided at ingest").
 *
 * Approximate where it cannot see, and said so in docs/integrity.md: the counts live in this process
 * (several collectors each allow K), at most `maxEntries` keys (least recently seen forgotten first), and
 * K is the one configured when the record arrived. A restart does not start over: `seedClientCap` adds
 * the stored records of the days still open that arrived before the process started. A key holds the
 * token as a keyed hash under a random per-process secret (no token is held in the clear), the day and
 * the site.
 */
import type { ClickHouseClient } from '@clickhouse/client';
import { createHmac, randomBytes } from 'node:crypto';
import type { HandshakeRecord } from '@tlsrum/shared';
import { MAX_CLOCK_SKEW_MS } from './submit';
import { LruMap } from './lru-map';

export interface ClientCapOptions {
  /** Records counted per client, UTC day and site (CLIENT_RECORDS_PER_CELL_DAY); 0: none marked. */
  perCell: number;
  maxEntries: number;
}

/** 200 000 keys (a 22-character token hash, the day and the site: ≈ 50 characters, ≤ 290 with the longest hostname) and a number: ≈ 25–80 MB at most. */
export const CLIENT_CAP_ENTRIES = 200_000;

const DAY_MS = 86_400_000;

export class ClientCapCounter {
  private readonly counts: LruMap<string, number>;
  private readonly secret = randomBytes(32);

  constructor(private readonly o: ClientCapOptions) {
    this.counts = new LruMap(o.maxEntries);
  }

  /** Counts the record; true when it is beyond the first `perCell` of its client, UTC day and site. */
  capped(r: HandshakeRecord, site: string): boolean {
    return this.forBatch()(r, site);
  }

  /**
   * `capped` for the records of one request: each distinct client token is keyed once (a batch comes
   * from one client: one HMAC per batch instead of one per record). The day and the site are what the
   * stored row holds anyway, so they join the key in the clear. The memo lives as long as the returned
   * function, i.e. the request.
   */
  forBatch(): (r: HandshakeRecord, site: string) => boolean {
    if (this.o.perCell <= 0) return () => false;
    const tokenKeys = new Map<string, string>();
    return (r, site) => {
      const key = this.key(this.tokenKey(r.clientToken, tokenKeys), Math.floor(r.ts / DAY_MS), site);
      const n = (this.counts.get(key) ?? 0) + 1;
      this.counts.set(key, n);
      return n > this.o.perCell;
    };
  }

  /**
   * Adds stored counts (records that arrived before this process started) to the counts of the records
   * since. The largest are set last, so the least recently seen keys forgotten first are the smallest.
   */
  seed(counts: readonly StoredCount[]): void {
    if (this.o.perCell <= 0) return;
    const tokenKeys = new Map<string, string>();
    for (const c of [...counts].sort((a, b) => a.n - b.n)) {
      const key = this.key(this.tokenKey(c.clientToken, tokenKeys), c.day, c.site);
      this.counts.set(key, (this.counts.get(key) ?? 0) + c.n);
    }
  }

  private tokenKey(token: string, memo: Map<string, string>): string {
    let t = memo.get(token);
    if (t === undefined) memo.set(token, (t = createHmac('sha256', this.secret).update(token).digest('base64url').slice(0, 22)));
    return t;
  }

  private key(token: string, day: number, site: string): string {
    return `${token}\u0000${day}\u0000${site}`;
  }

  get size(): number {
    return this.counts.size;
  }
}

/** A token's stored records of one UTC day (days since the epoch) and site, as the rows hold them. */
export interface StoredCount {
  clientToken: string;
  day: number;
  site: string;
  n: number;
}

/** How far back a record may still arrive (its `ts` within MAX_CLOCK_SKEW_MS of the clock), with an hour to spare. */
const OPEN_MS = MAX_CLOCK_SKEW_MS + 3_600_000;

/**
 * Seeds `counter` with the stored records of the UTC days still open that arrived before `startedAt` (the
 * previous processes' records: `receivedAt` is stored), the largest counts first, at most half the
 * counter's keys (the other half is for the records arriving now). Returns the keys seeded.
 */
export async function seedClientCap(counter: ClientCapCounter, client: ClickHouseClient, startedAt: number, maxKeys: number): Promise<number> {
  const rows = await (
    await client.query({
      query: `
        SELECT clientToken, toUInt32(intDiv(toUnixTimestamp64Milli(ts), 86400000)) AS day, site, toUInt32(count()) AS n
        FROM handshakes
        WHERE ts >= fromUnixTimestamp64Milli({from:Int64}, 'UTC') AND receivedAt < toDateTime({startedAt:UInt32}, 'UTC')
        GROUP BY clientToken, day, site
        ORDER BY n DESC
        LIMIT {limit:UInt32}`,
      query_params: { from: Math.floor((startedAt - OPEN_MS) / DAY_MS) * DAY_MS, startedAt: Math.floor(startedAt / 1000), limit: Math.floor(maxKeys / 2) },
      format: 'JSONEachRow',
    })
  ).json<StoredCount>();
  counter.seed(rows.map((r) => ({ ...r, day: Number(r.day), n: Number(r.n) })));
  return rows.length;
}
