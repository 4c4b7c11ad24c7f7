/**
 * One batch through the ingest steps (ingest/steps.ts) for every ingest route — the extension's and the
 * runner's `POST /v1/handshakes`, the site beacon's `POST /v1/beacon` — with the request's facts, the series
 * on /metrics, and the answer: `{accepted}` or the 4xx/503 the rejecting step names.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { HandshakeBatch, HandshakeRecord } from '@tlsrum/shared';
import { httpError } from '../platform/http/error-handler';
import { ingestBatch, isRejection, REJECTIONS, type IngestContext } from './steps';

export interface SubmitOptions {
  /** How an error names record `i` in the request's body (default `body/records/i`). */
  recordPath?: (i: number) => string;
  /** The site whose read token came with the batch: its records are stored as that owner's runs (ingest/steps.ts). */
  owner?: string;
}

export async function submitBatch(
  app: FastifyInstance,
  request: FastifyRequest,
  batch: HandshakeBatch,
  { recordPath, owner }: SubmitOptions = {},
): Promise<{ accepted: number; duplicate?: true }> {
  const m = app.ingestMetrics;
  const n = batch.records.length;
  const ctx: IngestContext = {
    now: Date.now(),
    ip: request.ip,
    sites: app.sites,
    profiles: app.profiles,
    storeReady: () => app.storeStatus.ready,
    pipeline: app.ingest,
    recordPath,
    owner,
    origin: (ip) => {
      // The token budget's keyed hash of the address lives in memory only: the row holds a flag.
      const admits = app.tokenBudget?.forAddress(ip);
      // Per site as stored: an unregistered hostname is no site (else each made-up name would be a fresh budget).
      const overTokenBudget = admits
        ? (r: HandshakeRecord) => !admits(r.site !== null && app.sites.has(r.site) ? r.site : null, r.clientToken)
        : undefined;
      return {
        // The address is used for this lookup and goes no further: rows hold the country only.
        country: app.countryOf(ip),
        receivedAt: ctx.now,
        isRegisteredSite: app.sites.has,
        overTokenBudget,
        overClientCap: app.clientCap.forBatch(),
        probeCrypto: app.siteCrypto.get,
        owner: owner !== undefined,
      };
    },
    onSpoolError: (err) =>
      request.log.error(
        { err: { message: (err as Error).message, code: (err as NodeJS.ErrnoException).code } },
        'spool write failed',
      ),
  };
  const outcome = await ingestBatch(batch, ctx);
  if (isRejection(outcome)) {
    const rejection = REJECTIONS[outcome.reject];
    if (rejection.countRecords) {
      request.rejectReason = rejection.metric;
      m.recordsRejected.inc({ reason: rejection.metric }, n);
    }
    throw httpError(
      rejection.status,
      outcome.message,
      outcome.retryAfter === undefined ? undefined : { 'retry-after': String(outcome.retryAfter) },
    );
  }
  if (outcome.stored === 'duplicate') {
    request.rejectReason = 'duplicate';
    m.recordsRejected.inc({ reason: 'duplicate' }, n);
    return { accepted: 0, duplicate: true };
  }
  m.batchesAccepted.inc();
  m.recordsAccepted.inc({}, n);
  return { accepted: n };
}
