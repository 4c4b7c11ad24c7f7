/**
 * Self-service registration: a claim gives its owner a random challenge; publishing it (DNS TXT record or
 * well-known file) and asking for verification registers the site and issues its read token, shown once
 * and stored as its SHA-256 like the admin route's. Ownership is checked again on a timer; once the
 * re-checks have failed for `revokeAfterDays`, the token is revoked and the site unregistered (its records
 * age out under the retention as usual), and the owner may claim it again.
 *
 * Several claims of one hostname may be open at once (a second claimant does not replace the first one's
 * challenge, so nobody can keep an owner from finishing): whichever challenge is published wins. Proving
 * control again issues a new token and the previous one stops working, as re-registering does.
 */
import { randomBytes } from 'node:crypto';
import type { ClickHouseClient } from '@clickhouse/client';
import { newReadToken } from '../auth';
import { listSiteRows } from '../store';
import type { SiteRegistry } from '../registry';
import { resolvePublic, ConnectRefused } from '../../platform/net/public-connect';
import { findProof, type ProofContext } from './proof';
import { claimsOf, countPending, saveClaim, verifiedClaims, type Claim, type ProofMethod } from './store';

/** 192 random bits: guessing a challenge is not an option. */
export const newChallenge = () => `tlsrum-site-verification=${randomBytes(24).toString('base64url')}`;

/** A claim error carries the HTTP status the route answers with. */
export class ClaimError extends Error {
  constructor(
    readonly status: 400 | 404 | 409 | 422 | 429 | 502 | 503,
    message: string,
    readonly retryAfterS?: number,
  ) {
    super(message);
  }
}

export interface ClaimsConfig {
  ttlHours: number;
  maxPending: number;
  revokeAfterDays: number;
}

/** Open claims of one hostname at once: enough for a few people of one team, too few to flood. */
export const MAX_OPEN_CLAIMS_PER_HOST = 20;
/** Ownership checks running at once (each one connects to a site and waits for it). */
export const MAX_CHECKS_IN_FLIGHT = 8;

export interface ClaimsDeps {
  client: ClickHouseClient;
  sites: SiteRegistry;
  proof: ProofContext;
  config: ClaimsConfig;
  /** After a site was registered or unregistered (the profiles follow). */
  onSitesChanged?: () => void;
}

export interface RecheckSummary {
  checked: number;
  ok: number;
  failing: number;
  revoked: string[];
}

export class Claims {
  private verifying = new Set<string>();
  private inFlight = 0;

  constructor(private readonly d: ClaimsDeps) {}

  /** Opens a claim for an already validated hostname. */
  async claim(hostname: string, now = Date.now()): Promise<Claim> {
    if ((await countPending(this.d.client, now)) >= this.d.config.maxPending) {
      throw new ClaimError(503, 'too many claims are waiting for their proof right now; try again in an hour', 3600);
    }
    const open = (await claimsOf(this.d.client, hostname)).filter((c) => c.status === 'pending' && c.expiresAt > now);
    if (open.length >= MAX_OPEN_CLAIMS_PER_HOST) {
      throw new ClaimError(
        429,
        `${hostname} already has ${open.length} open claims: publish the challenge of one of them and verify it, or wait until they expire`,
        3600,
      );
    }
    await this.publicOrThrow(hostname, 400);
    const claim: Claim = {
      hostname,
      challenge: newChallenge(),
      status: 'pending',
      method: '',
      tokenHash: '',
      createdAt: now,
      expiresAt: now + this.d.config.ttlHours * 3_600_000,
      verifiedAt: 0,
      checkedAt: 0,
      failingSince: 0,
      lastReason: '',
    };
    await saveClaim(this.d.client, claim);
    return claim;
  }

  /** The name must resolve to public addresses only (or be allow-listed by the operator). */
  private async publicOrThrow(hostname: string, status: 400 | 422): Promise<void> {
    try {
      await resolvePublic(
        hostname,
        { ...this.d.proof.policy, timeoutMs: this.d.proof.timeoutMs },
        this.d.proof.resolver,
      );
    } catch (err) {
      if (!(err instanceof ConnectRefused)) throw err;
      if (err.code === 'timeout' || err.code === 'dns')
        throw new ClaimError(502, `${err.message}; try again in a minute`, 60);
      throw new ClaimError(status, err.message);
    }
  }

  /** Looks for the challenge of an open claim; registers the site and returns its new token when found. */
  async verify(
    hostname: string,
    method?: ProofMethod,
    now = Date.now(),
  ): Promise<{ readToken: string; method: ProofMethod }> {
    const open = (await claimsOf(this.d.client, hostname)).filter((c) => c.status === 'pending' && c.expiresAt > now);
    if (open.length === 0) {
      throw new ClaimError(
        404,
        `there is no open claim for ${hostname}: claim it first (claims expire after ${this.d.config.ttlHours} hours)`,
      );
    }
    if (this.verifying.has(hostname))
      throw new ClaimError(409, `${hostname} is being checked right now; try again in a few seconds`, 5);
    if (this.inFlight >= MAX_CHECKS_IN_FLIGHT)
      throw new ClaimError(503, 'too many ownership checks are running; try again in a few seconds', 5);
    this.verifying.add(hostname);
    this.inFlight++;
    try {
      const proof = await findProof(
        hostname,
        open.map((c) => c.challenge),
        this.d.proof,
        method,
      );
      if (!proof.found) throw new ClaimError(422, proof.reason);
      const claim = open.find((c) => c.challenge === proof.challenge)!;
      const { token, hash } = newReadToken();
      await this.d.sites.register(hostname, hash);
      // Earlier proofs of this hostname (verified or open) end here: one owner's token at a time.
      for (const other of await claimsOf(this.d.client, hostname)) {
        if (other.challenge !== claim.challenge && (other.status === 'verified' || other.status === 'pending')) {
          await saveClaim(this.d.client, { ...other, status: 'superseded' });
        }
      }
      await saveClaim(this.d.client, {
        ...claim,
        status: 'verified',
        method: proof.method,
        tokenHash: hash,
        verifiedAt: now,
        checkedAt: now,
        failingSince: 0,
        lastReason: '',
      });
      this.d.onSitesChanged?.();
      return { readToken: token, method: proof.method };
    } finally {
      this.verifying.delete(hostname);
      this.inFlight--;
    }
  }

  /**
   * Checks every verified claim again. A claim whose site the operator unregistered, or re-registered with
   * a token of their own, is no longer the claimant's to keep: it ends without touching the site.
   */
  async recheck(now = Date.now()): Promise<RecheckSummary> {
    const summary: RecheckSummary = { checked: 0, ok: 0, failing: 0, revoked: [] };
    const tokens = new Map((await listSiteRows(this.d.client)).map((r) => [r.hostname, r.tokenHash]));
    for (const claim of await verifiedClaims(this.d.client)) {
      if (tokens.get(claim.hostname) !== claim.tokenHash) {
        await saveClaim(this.d.client, { ...claim, status: 'superseded', checkedAt: now });
        continue;
      }
      summary.checked++;
      const preferred = claim.method === '' ? undefined : claim.method;
      let proof = await findProof(claim.hostname, [claim.challenge], this.d.proof, preferred);
      // The owner may have moved the proof from the file to DNS or back: either counts.
      if (!proof.found && preferred) proof = await findProof(claim.hostname, [claim.challenge], this.d.proof);
      if (proof.found) {
        summary.ok++;
        await saveClaim(this.d.client, {
          ...claim,
          method: proof.method,
          checkedAt: now,
          failingSince: 0,
          lastReason: '',
        });
        continue;
      }
      const failingSince = claim.failingSince || now;
      if (now - failingSince >= this.d.config.revokeAfterDays * 86_400_000) {
        await this.d.sites.unregister(claim.hostname);
        await saveClaim(this.d.client, {
          ...claim,
          status: 'revoked',
          checkedAt: now,
          failingSince,
          lastReason: proof.reason,
        });
        summary.revoked.push(claim.hostname);
        this.d.onSitesChanged?.();
      } else {
        summary.failing++;
        await saveClaim(this.d.client, { ...claim, checkedAt: now, failingSince, lastReason: proof.reason });
      }
    }
    return summary;
  }
}
