/**
 * How many new client tokens one address may introduce per UTC day and site. A flooder who rotates
 * tokens to escape the per-client cap (store queries: one token weighs at most K records per cell and
 * day) needs a fresh token for every K records; this bounds how many of them one address can mint.
 *
 * The address never leaves this module: it is keyed with HMAC-SHA-256 under a random secret drawn at
 * start and redrawn at each UTC midnight, held only in this process's memory (never stored, never
 * logged); the key is cut to 16 bytes. After the secret changes, yesterday's keys cannot be recomputed
 * from an address, even by someone holding this process's memory. Tokens are kept as the same kind of
 * keyed hash. IPv6 addresses count per /64 (one subscriber's prefix: rotating inside it is free).
 *
 * Memory is bounded: at most `maxEntries` (address, site) pairs, each with at most `perAddress` token
 * keys; the least recently seen pair is forgotten first (it may then introduce `perAddress` tokens again:
 * a bounded leak, not an unbounded table). Memory for the defaults: TOKEN_BUDGET_DEFAULTS.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { normalizeIP } from '@fastify/rate-limit';

export interface TokenBudgetOptions {
  /** New tokens one address may introduce per site and UTC day. */
  perAddress: number;
  /** (address, site) pairs remembered at most. */
  maxEntries: number;
  now?: () => number;
  /** The daily secret; tests may pin it. */
  secret?: () => Buffer;
}

/**
 * 20 tokens per address, site and day: an honest client has one token a day (it rotates daily), so 20
 * is a household or small office behind one address. 50 000 pairs × ≤ 20 keys ≈ 1 M keys: ≈ 100 MB worst case,
 * ≈ 5 MB for the usual one or two tokens per pair.
 */
export const TOKEN_BUDGET_DEFAULTS = { perAddress: 20, maxEntries: 50_000 } as const;

const DAY_MS = 86_400_000;

export class TokenBudget {
  private day = -1;
  private secret: Buffer = Buffer.alloc(0);
  /** key(address) + site → keys of the tokens it introduced today; Map order = least recently seen first. */
  private readonly entries = new Map<string, Set<string>>();
  private readonly now: () => number;
  private readonly newSecret: () => Buffer;

  constructor(private readonly o: TokenBudgetOptions) {
    this.now = o.now ?? Date.now;
    this.newSecret = o.secret ?? (() => randomBytes(32));
  }

  /**
   * True when `token` may count for `site` from `address`: it was introduced by this address today, or
   * the address has introduced fewer than `perAddress` tokens for the site today (then it is now).
   */
  admits(address: string, site: string | null, token: string): boolean {
    return this.forAddress(address)(site, token);
  }

  /**
   * `admits` for the records of one request: the address is keyed once, and each distinct token once
   * (a batch comes from one client, so usually one token: one HMAC per batch instead of two per record).
   * The memo lives as long as the returned function, i.e. the request, whose body holds the tokens
   * anyway; the table keeps only keyed hashes.
   */
  forAddress(address: string): (site: string | null, token: string) => boolean {
    this.rollOver();
    const day = this.day;
    const addressKey = this.key(prefixOf(address));
    // Per (site, token) within this request: the verdict cannot change between two of its records (an
    // admitted token stays admitted; a full budget stays full), so each pair is looked up once.
    const verdicts = new Map<string, boolean>();
    const tokenKeys = new Map<string, string>();
    return (site, token) => {
      this.rollOver();
      if (this.day !== day) return this.admits(address, site, token);
      const memo = `${site ?? ''}\u0000${token}`;
      let verdict = verdicts.get(memo);
      if (verdict === undefined) {
        let t = tokenKeys.get(token);
        if (t === undefined) tokenKeys.set(token, (t = this.key(token)));
        verdicts.set(memo, (verdict = this.admitKey(`${addressKey}|${site ?? ''}`, t)));
      }
      return verdict;
    };
  }

  private admitKey(pair: string, t: string): boolean {
    const tokens = this.entries.get(pair) ?? new Set<string>();
    this.entries.delete(pair);
    this.entries.set(pair, tokens);
    if (tokens.has(t)) return true;
    if (tokens.size >= this.o.perAddress) return false;
    tokens.add(t);
    if (this.entries.size > this.o.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    return true;
  }

  /** Pairs remembered now (for /metrics and tests). */
  get size(): number {
    return this.entries.size;
  }

  private rollOver(): void {
    const day = Math.floor(this.now() / DAY_MS);
    if (day === this.day) return;
    this.day = day;
    this.secret = this.newSecret();
    this.entries.clear();
  }

  private key(value: string): string {
    return createHmac('sha256', this.secret).update(value).digest('base64url').slice(0, 22);
  }
}

/** IPv4 (and IPv4-mapped IPv6) as is; IPv6 cut to its /64 prefix (as the rate limiter counts it). */
export const prefixOf = (address: string): string => normalizeIP(address, 64);
