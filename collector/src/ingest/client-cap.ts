/**
 * The per-client cap, decided as records arrive: of each client token, UTC day and site, the records after
 * the first K are marked `capped`. The row is stored like any other (K can change, and an operator can see
 * what was marked); the figures of whole days leave it out — the rollups' views and the raw table's daily
 * cells alike (query/counted.ts) — so every cell of a site's daily figures holds at most K records of
 * one client a day, and both paths count the same rows. Deciding it here rather than in each query keeps
 * the cap's query cost to one column (docs/decisions/0002-per-client-cap-at-ingest.md).
 *
 * Approximate where it cannot see, and said so in docs/integrity.md: the counts live in this process
 * (several collectors each allow K) and K is the one configured when the record arrived. Memory is
 * bounded without letting anyone flush a heavy client's count: keys still under K live in an LRU of
 * `maxEntries` (a forgotten one starts over, so a light client may count up to K again), while a key
 * that reached K moves to a set of its own (at most `maxEntries` too) that forgets nothing of the days
 * still open — evicting it would give its client K more records. Only when that set is full of open
 * days' keys does a key at K stay in the LRU, as every key did before. Flagged records (any plausibility or
 * token-budget bit) never reach this counter (ingest/columns.ts): junk cannot fill it. A restart does not start over: `seedClientCap` adds
 * the stored records of the days still open that arrived before the process started. A key holds the
 * token hashed with a random per-process secret (no token is held in the clear), the day and the site.
 */
import type { ClickHouseClient } from '@clickhouse/client';
import { hash, randomBytes } from 'node:crypto';
import type { HandshakeRecord } from '@tlsrum/shared';
import { MAX_CLOCK_SKEW_MS } from './steps';
import { LruMap } from './lru-map';
import { answerText } from '../platform/store/answer-text';
import { backgroundQuery } from '../platform/store/query-pool';
import { compactRows, runBetweenRequests, SLICE, type Work } from '../platform/work';

export interface ClientCapOptions {
  /** Records counted per client, UTC day and site (CLIENT_RECORDS_PER_CELL_DAY); 0: none marked. */
  perCell: number;
  maxEntries: number;
}

/** 200 000 keys (a 22-character token hash, the day and the site: ≈ 50 characters, ≤ 290 with the longest hostname) and a number: ≈ 25–80 MB at most, for the keys under K and as much for those at K (CLIENT_CAP_KEYS). */
export const CLIENT_CAP_ENTRIES = 200_000;

const DAY_MS = 86_400_000;

export class ClientCapCounter {
  private readonly counts: LruMap<string, number>;
  /** Keys that reached K, with their UTC day (days since the epoch): never forgotten while the day is open. */
  private readonly full = new Map<string, number>();
  /** The per-process secret a token is hashed with: 44 characters, so the token that follows it is unambiguous. */
  private readonly secret = randomBytes(32).toString('base64');

  constructor(private readonly o: ClientCapOptions) {
    this.counts = new LruMap(o.maxEntries);
  }

  /** Counts `n` records of a key; true when the key is (now) beyond K. */
  private add(key: string, day: number, n: number): boolean {
    if (this.full.has(key)) return true;
    const count = (this.counts.get(key) ?? 0) + n;
    if (count < this.o.perCell) {
      this.counts.set(key, count);
      return false;
    }
    // At K: the key moves to the set that forgets nothing of open days; if that set is full of them, it
    // stays in the LRU (as every key did before there was such a set).
    if (this.full.size >= this.o.maxEntries) this.forgetClosedDays();
    if (this.full.size < this.o.maxEntries) {
      this.counts.delete(key);
      this.full.set(key, day);
    } else this.counts.set(key, count);
    return count > this.o.perCell;
  }

  /** Drops the keys of days on which no record can arrive any more (ingest/route.ts: ts within 24 h). */
  private forgetClosedDays(): void {
    const firstOpen = Math.floor((Date.now() - OPEN_MS) / DAY_MS);
    for (const [key, day] of this.full) if (day < firstOpen) this.full.delete(key);
  }

  /** Counts the record; true when it is beyond the first `perCell` of its client, UTC day and site. */
  capped(r: HandshakeRecord, site: string): boolean {
    return this.forBatch()(r, site);
  }

  /**
   * `capped` for the records of one request: each distinct client token is keyed once (a batch comes
   * from one client: one hash per batch instead of one per record). The day and the site are what the
   * stored row holds anyway, so they join the key in the clear. The memo lives as long as the returned
   * function, i.e. the request.
   */
  forBatch(): (r: HandshakeRecord, site: string) => boolean {
    if (this.o.perCell <= 0) return () => false;
    const tokenKeys = new Map<string, string>();
    return (r, site) => {
      const day = Math.floor(r.ts / DAY_MS);
      return this.add(this.key(this.tokenKey(r.clientToken, tokenKeys), day, site), day, 1);
    };
  }

  /**
   * Adds stored counts (records that arrived before this process started) to the counts of the records
   * since, in the order given: the caller gives the largest last, so the least recently seen keys forgotten
   * first are the smallest. Work that may pause between slices (platform/work.ts): each count hashes its
   * token with the secret.
   */
  *seeding(counts: readonly StoredCount[]): Work<void> {
    if (this.o.perCell <= 0) return;
    const tokenKeys = new Map<string, string>();
    for (let i = 0; i < counts.length; i++) {
      if (i % SLICE === 0) yield;
      const c = counts[i]!;
      this.add(this.key(this.tokenKey(c.clientToken, tokenKeys), c.day, c.site), c.day, c.n);
    }
  }

  /**
   * SHA-256 of the secret, then the token. Not an HMAC: the hash never leaves this process's memory (it only
   * keys a map), so no one can extend it, and one call costs a fifth of an HMAC's object set-up (100 000 tokens:
   * 65 ms against 300, what the start-up counts hash).
   */
  private tokenKey(token: string, memo: Map<string, string>): string {
    let t = memo.get(token);
    if (t === undefined) memo.set(token, (t = hash('sha256', this.secret + token, 'base64url').slice(0, 22)));
    return t;
  }

  private key(token: string, day: number, site: string): string {
    return `${token}\u0000${day}\u0000${site}`;
  }

  /** Keys held: under K and at K. */
  get size(): number {
    return this.counts.size + this.full.size;
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
 *
 * Work no reader waits for, done beside the first readers of a freshly started collector: the read is
 * background work (store/query-pool.ts: one slot, one thread, readers first), and its rows are read and
 * counted between requests (platform/work.ts). Done at once, a day of 10 M records a month (100 000 keys)
 * held the event loop for 0.6–1 s just after the store was ready, and the dashboard's first map took 0.9 s
 * instead of 0.06.
 */
export async function seedClientCap(
  counter: ClientCapCounter,
  client: ClickHouseClient,
  startedAt: number,
  maxKeys: number,
): Promise<number> {
  const text = await backgroundQuery.run(true, async () =>
    answerText(
      await client.query({
        // The largest counts kept, returned smallest first: the order `seeding` takes them in.
        query: `
        SELECT clientToken, day, site, n FROM (
          SELECT clientToken, toUInt32(intDiv(toUnixTimestamp64Milli(ts), 86400000)) AS day, site, toUInt32(count()) AS n
          FROM handshakes
          WHERE ts >= fromUnixTimestamp64Milli({from:Int64}, 'UTC') AND receivedAt < toDateTime({startedAt:UInt32}, 'UTC')
          GROUP BY clientToken, day, site
          ORDER BY n DESC
          LIMIT {limit:UInt32}
        )
        ORDER BY n`,
        query_params: {
          from: Math.floor((startedAt - OPEN_MS) / DAY_MS) * DAY_MS,
          startedAt: Math.floor(startedAt / 1000),
          limit: Math.floor(maxKeys / 2),
        },
        format: 'JSONCompactEachRow',
      }),
    ),
  );
  const counts = await runBetweenRequests(
    compactRows(text, ([clientToken, day, site, n]): StoredCount => ({
      clientToken: String(clientToken),
      day: Number(day),
      site: String(site),
      n: Number(n),
    })),
  );
  await runBetweenRequests(counter.seeding(counts));
  return counts.length;
}
