/**
 * The daily rollup's share of the per-client cap. The rollup (migrations 0006/0007) is filled by a view
 * that sees one insert at a time, so it cannot count a client's records across inserts; the collector
 * does, at ingest: of each client token, UTC day, site and rollup cell (country, protocol, TLS version,
 * resumed, class — the finest key the rollup keeps) the records after the first K are marked `capped`.
 * The row is stored like any other and the raw-table queries ignore the mark (they cap exactly, per their
 * own cells: queries/counted.ts); only the rollup's view skips it.
 *
 * Approximate, and said so in docs/integrity.md: counts live in this process (several collectors each
 * allow K; a restart starts over), at most `maxEntries` keys (least recently seen forgotten first), and K
 * is the one configured when the record arrived. A key holds the token as a keyed hash under a random
 * per-process secret (no token is held in the clear) and the rest of the cell as the row stores it.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { HandshakeRecord } from '@tlsrum/shared';

export interface ClientCapOptions {
  /** Records counted per client, day, site and rollup cell (CLIENT_RECORDS_PER_CELL_DAY); 0: none marked. */
  perCell: number;
  maxEntries: number;
}

/** 200 000 keys (a 22-character token hash and the cell: ≈ 70 characters, ≤ 330 with the longest hostname) and a number: ≈ 30–90 MB at most. */
export const CLIENT_CAP_ENTRIES = 200_000;

const DAY_MS = 86_400_000;

export class ClientCapCounter {
  private readonly counts = new Map<string, number>();
  private readonly secret = randomBytes(32);

  constructor(private readonly o: ClientCapOptions) {}

  /** Counts the record; true when it is beyond the first `perCell` of its client, day and rollup cell. */
  capped(r: HandshakeRecord, site: string, country: string): boolean {
    return this.forBatch()(r, site, country);
  }

  /**
   * `capped` for the records of one request: each distinct client token is keyed once (a batch comes
   * from one client: one HMAC per batch instead of one per record). The rest of the cell (day, site,
   * country, protocol, version, resumed, class) is what the stored row holds anyway, so it joins the
   * key in the clear. The memo lives as long as the returned function, i.e. the request.
   */
  forBatch(): (r: HandshakeRecord, site: string, country: string) => boolean {
    if (this.o.perCell <= 0) return () => false;
    const tokenKeys = new Map<string, string>();
    return (r, site, country) => {
      let t = tokenKeys.get(r.clientToken);
      if (t === undefined) tokenKeys.set(r.clientToken, (t = createHmac('sha256', this.secret).update(r.clientToken).digest('base64url').slice(0, 22)));
      const key = `${t}\u0000${Math.floor(r.ts / DAY_MS)}\u0000${site}\u0000${country}\u0000${r.protocol}\u0000${r.tlsVersion ?? ''}\u0000${r.resumed}\u0000${r.handshakeClass}`;
      const n = (this.counts.get(key) ?? 0) + 1;
      this.counts.delete(key);
      this.counts.set(key, n);
      if (this.counts.size > this.o.maxEntries) this.counts.delete(this.counts.keys().next().value!);
      return n > this.o.perCell;
    };
  }

  get size(): number {
    return this.counts.size;
  }
}
