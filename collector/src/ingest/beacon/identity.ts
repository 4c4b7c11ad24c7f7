/**
 * The client identity of a beacon record, derived by the collector (the beacon sends no token): a keyed
 * hash (HMAC-SHA-256, cut to 22 base64url characters, the form of an extension token) of the site and
 * the client address — IPv6 cut to its /64, as the rate limiter and the token budget count it — under a
 * random secret drawn at start and redrawn at each UTC midnight. The secret lives only in this process's
 * memory and the address only in this call: neither is stored or logged. After midnight yesterday's
 * identities cannot be recomputed from an address, so one visitor's days cannot be linked.
 *
 * What it costs (docs/privacy.md, docs/integrity.md): a restart mid-day, or several collectors behind a
 * load balancer that does not route by client address, give one visitor a second identity that day; and
 * visitors behind one address (an office, a carrier-grade NAT) count as one client.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { prefixOf } from '../token-budget';

const DAY_MS = 86_400_000;

export class BeaconIdentity {
  private day = -1;
  private secret: Buffer = Buffer.alloc(0);

  constructor(
    private readonly now: () => number = Date.now,
    private readonly newSecret: () => Buffer = () => randomBytes(32),
  ) {}

  /** The client token standing for this address on this site today. */
  tokenFor(site: string, address: string): string {
    const day = Math.floor(this.now() / DAY_MS);
    if (day !== this.day) {
      this.day = day;
      this.secret = this.newSecret();
    }
    return createHmac('sha256', this.secret)
      .update(`${site}\u0000${prefixOf(address)}`)
      .digest('base64url')
      .slice(0, 22);
  }
}
