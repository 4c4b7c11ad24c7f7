/**
 * Failed token attempts per client address: a bearer token that is neither the admin token nor a site's
 * read token counts one failure for the address it came from; past `perHour` failures within the hour,
 * every token from that address is answered 429 + `Retry-After` until the hour is over — the right token
 * too, so that a guesser learns nothing from the answer while locked out. Read tokens carry 256 random
 * bits and the admin token at least 128 (platform/config.ts), so this bounds online guessing of either far below
 * any chance of success; it also keeps a guesser from loading the site registry's refresh.
 *
 * Like the token budget, the address stays in memory as a keyed hash (HMAC-SHA-256 under a random secret
 * drawn at start), IPv6 counted per /64; at most `maxEntries` addresses, the least recently seen
 * forgotten first.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { normalizeIP } from '@fastify/rate-limit';
import { LruMap } from '../ingest/lru-map';

const HOUR_MS = 3_600_000;

export interface TokenFailureOptions {
  /** Failed attempts an address may make per hour; 0 = no limit. */
  perHour: number;
  maxEntries: number;
  now?: () => number;
}

export class TokenFailures {
  private readonly secret = randomBytes(32);
  private readonly seen: LruMap<string, { since: number; n: number }>;
  private readonly now: () => number;

  constructor(private readonly o: TokenFailureOptions) {
    this.seen = new LruMap(o.maxEntries);
    this.now = o.now ?? Date.now;
  }

  private key(ip: string): string {
    return createHmac('sha256', this.secret).update(normalizeIP(ip)).digest('base64url').slice(0, 22);
  }

  /** Seconds until the address may try a token again, or 0 when it may now. */
  lockedFor(ip: string): number {
    if (this.o.perHour <= 0) return 0;
    const e = this.seen.get(this.key(ip));
    if (!e || e.n < this.o.perHour) return 0;
    const left = e.since + HOUR_MS - this.now();
    return left > 0 ? Math.ceil(left / 1000) : 0;
  }

  /** Counts one failed attempt of the address. */
  fail(ip: string): void {
    if (this.o.perHour <= 0) return;
    const key = this.key(ip);
    const now = this.now();
    const e = this.seen.get(key);
    if (!e || now - e.since >= HOUR_MS) this.seen.set(key, { since: now, n: 1 });
    else this.seen.set(key, { since: e.since, n: e.n + 1 });
  }
}
