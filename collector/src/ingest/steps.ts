/**
 * The ingest path as one named list of steps, in the order a batch meets them. Each step takes the batch
 * (after the schema check) and either hands it on, possibly changed, or rejects it with a reason. What a
 * reason means to the sender (status, message, Retry-After) and to the operator (the `reason` label on
 * /metrics) is declared once, in REJECTIONS.
 *
 * The routes (ingest/route.ts, ingest/beacon/route.ts, through ingest/submit.ts) only run the steps and answer; the last step makes the batch durable
 * (ingest/pipeline.ts: spool → flusher → store).
 */
import { applyProfileToRecord, rejectingRule, type HandshakeBatch, type HandshakeRecord } from '@tlsrum/shared';
import type { BatchOrigin, IngestPipeline } from './pipeline';
import { SpoolFullError } from './pipeline';

/** Records whose timestamp is further than this from the receive time are refused: clock garbage. */
export const MAX_CLOCK_SKEW_MS = 24 * 3600_000;

/** Every way a batch can fail to be stored, with what the sender is told. */
export const REJECTIONS = {
  /** A batch sent with a site's read token holds a record that is not that site's synthetic run. */
  not_owner_run: { status: 403, metric: 'forbidden', countRecords: false },
  /** A record's clock is implausibly far from the collector's. */
  clock_skew: { status: 400, metric: 'invalid', countRecords: false },
  /** A record no honest producer can send (docs/integrity.md names each rule). */
  implausible: { status: 400, metric: 'invalid', countRecords: false },
  /** The store is not ready yet (start-up): the sender retries. */
  not_ready: { status: 503, metric: 'not_ready', countRecords: true },
  /** The durable spool is at its cap (the store is behind): the sender retries. */
  spool_full: { status: 503, metric: 'spool_full', countRecords: true },
  /** Writing the spool failed: the sender retries. */
  spool_error: { status: 503, metric: 'spool_error', countRecords: true },
} as const;
export type RejectionReason = keyof typeof REJECTIONS;

export interface Rejection {
  reject: RejectionReason;
  message: string;
  /** Seconds, for the 503s. */
  retryAfter?: number;
}

/** What the steps may use besides the batch: the request's facts and the collector's state. */
export interface IngestContext {
  now: number;
  /** Used for the country lookup and the token budget's keyed hash, then dropped: rows never hold it. */
  ip: string;
  sites: { has(hostname: string): boolean };
  profiles: {
    claimsFor(
      site: string,
      browser: HandshakeRecord['browser'],
      major: number | null,
    ): Parameters<typeof applyProfileToRecord>[1];
  };
  storeReady: () => boolean;
  pipeline: Pick<IngestPipeline, 'isDuplicate' | 'accepts' | 'retryAfterSeconds' | 'submit'>;
  /** The rest of the row context (country, budget, cap, probe facts), built once the batch is to be stored. */
  origin: (ip: string) => BatchOrigin;
  onSpoolError?: (err: unknown) => void;
  /** How a rejection names record `i` in the request's body (default `body/records/i`). */
  recordPath?: (i: number) => string;
  /**
   * The site whose read token came with the batch (`Authorization: Bearer`, checked by the route): the
   * batch is that site's owner's, and may hold only their synthetic runs of that site. Absent: no token.
   */
  owner?: string;
}

const pathOf = (ctx: IngestContext, i: number) => ctx.recordPath?.(i) ?? `body/records/${i}`;

export type StepOutcome = HandshakeBatch | Rejection;
export interface IngestStep {
  name: string;
  run(batch: HandshakeBatch, ctx: IngestContext): StepOutcome | Promise<StepOutcome>;
}

export const isRejection = (o: StepOutcome | StoreOutcome): o is Rejection => 'reject' in o;

/**
 * A batch sent with a site's read token is stored as the owner's own runs, which that token then reads
 * without the people threshold (query/cells.ts): so every record must be a synthetic run of that very site.
 * One record that is not refuses the whole batch, like every other refusal: nothing of it is stored.
 */
const ownerRuns: IngestStep = {
  name: 'owner-runs',
  run(batch, ctx) {
    const owner = ctx.owner;
    if (owner === undefined) return batch;
    for (let i = 0; i < batch.records.length; i++) {
      const r = batch.records[i]!;
      if (r.source !== 'synthetic')
        return {
          reject: 'not_owner_run',
          message: `${pathOf(ctx, i)}/source is "${r.source}": a batch sent with a site's read token may hold only that site's own synthetic runs (source "synthetic"); send other records without the token`,
        };
      if (r.site !== owner)
        return {
          reject: 'not_owner_run',
          message: `${pathOf(ctx, i)}/site is ${r.site === null ? 'empty' : `"${r.site}"`}, but this read token is for ${owner}: a batch sent with a site's read token may hold only that site's own runs`,
        };
    }
    return batch;
  },
};

const clock: IngestStep = {
  name: 'clock',
  run(batch, ctx) {
    const i = batch.records.findIndex((r) => Math.abs(r.ts - ctx.now) > MAX_CLOCK_SKEW_MS);
    return i < 0
      ? batch
      : { reject: 'clock_skew', message: `${pathOf(ctx, i)}/ts must be within 24 h of the collector's clock` };
  },
};

const plausibility: IngestStep = {
  name: 'plausibility',
  run(batch, ctx) {
    for (let i = 0; i < batch.records.length; i++) {
      const rule = rejectingRule(batch.records[i]!, batch);
      if (rule)
        return {
          reject: 'implausible',
          message: `${pathOf(ctx, i)} is implausible (rule ${rule.name}): ${rule.requirement}`,
        };
    }
    return batch;
  },
};

/**
 * Records of a registered site built without its profile (older extensions) get the same site-profile
 * rules the extension applies (docs/decisions: site profiles and evidence).
 */
const siteProfiles: IngestStep = {
  name: 'site-profiles',
  run(batch, ctx) {
    const records = batch.records;
    for (let i = 0; i < records.length; i++) {
      const r = records[i]!;
      if (r.site !== null && r.transport === 'tcp' && ctx.sites.has(r.site)) {
        records[i] = applyProfileToRecord(r, ctx.profiles.claimsFor(r.site, r.browser, r.browserMajor));
      }
    }
    return batch;
  },
};

const storeReady: IngestStep = {
  name: 'store-ready',
  run: (batch, ctx) => (ctx.storeReady() ? batch : { reject: 'not_ready', message: UNAVAILABLE, retryAfter: 5 }),
};

/** A resent batch is answered as a duplicate even at the cap; anything else needs room in the spool. */
const spoolRoom: IngestStep = {
  name: 'spool-room',
  run(batch, ctx) {
    if (ctx.pipeline.isDuplicate(batch.batchId) || ctx.pipeline.accepts(batch.records.length)) return batch;
    return { reject: 'spool_full', message: UNAVAILABLE, retryAfter: ctx.pipeline.retryAfterSeconds() };
  },
};

const UNAVAILABLE = 'the collector cannot take more records now; retry later';

/** Everything before the batch is made durable, in order. */
export const INGEST_STEPS: readonly IngestStep[] = [
  ownerRuns,
  clock,
  plausibility,
  siteProfiles,
  storeReady,
  spoolRoom,
];

export type StoreOutcome = { stored: 'accepted' | 'duplicate'; records: number } | Rejection;

/** Runs the steps, then makes the batch durable: 'accepted' once it is on disk, 'duplicate' if it was already. */
export async function ingestBatch(
  batch: HandshakeBatch,
  ctx: IngestContext,
  steps = INGEST_STEPS,
): Promise<StoreOutcome> {
  let current = batch;
  for (const step of steps) {
    const out = await step.run(current, ctx);
    if (isRejection(out)) return out;
    current = out;
  }
  try {
    const result = await ctx.pipeline.submit(current, ctx.origin(ctx.ip));
    return { stored: result.status, records: current.records.length };
  } catch (err) {
    if (err instanceof SpoolFullError)
      return { reject: 'spool_full', message: UNAVAILABLE, retryAfter: ctx.pipeline.retryAfterSeconds() };
    ctx.onSpoolError?.(err);
    return { reject: 'spool_error', message: UNAVAILABLE, retryAfter: 5 };
  }
}
