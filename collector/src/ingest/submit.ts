/**
 * One batch of records from checks to the spool, for every ingest route (the extension's and runner's
 * `POST /v1/handshakes`, the site beacon's `POST /v1/beacon`): the clock and plausibility checks, the
 * site profile's rules, readiness and spool room, the country lookup, the per-address token budget, the
 * per-client cap, the durable append and the series on /metrics. Throws the 4xx/503 to answer.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { applyProfileToRecord, rejectingRule, type HandshakeBatch, type HandshakeRecord } from '@tlsrum/shared';
import { httpError } from '../plugins/error-handler';
import { SpoolFullError } from './pipeline';

/** Records whose timestamp is further than this from the receive time are refused: clock garbage. */
export const MAX_CLOCK_SKEW_MS = 24 * 3600_000;

export interface SubmitOptions {
  /** How an error names record `i` in the body (`body/records/3`). */
  pathOf?: (i: number) => string;
}

export async function submitBatch(
  app: FastifyInstance,
  request: FastifyRequest,
  batch: HandshakeBatch,
  { pathOf = (i) => `body/records/${i}` }: SubmitOptions = {},
): Promise<{ accepted: number; duplicate?: true }> {
  const m = app.ingestMetrics;
  const unavailable = (retryAfter: number) =>
    httpError(503, 'the collector cannot take more records now; retry later', { 'retry-after': String(retryAfter) });
  const n = batch.records.length;
  const now = Date.now();
  batch.records.forEach((r, i) => {
    if (Math.abs(r.ts - now) > MAX_CLOCK_SKEW_MS) {
      throw httpError(400, `${pathOf(i)}/ts must be within 24 h of the collector's clock`);
    }
    // What no honest producer can send is refused, naming the rule (docs/integrity.md).
    const rule = rejectingRule(r, batch);
    if (rule) throw httpError(400, `${pathOf(i)} is implausible (rule ${rule.name}): ${rule.requirement}`);
  });
  // Records of a registered site built without its profile (older extensions) get the same
  // site-profile rules the extension applies (shared/README.md, "Site profiles").
  for (let i = 0; i < n; i++) {
    const r = batch.records[i]!;
    if (r.site !== null && r.transport === 'tcp' && app.sites.has(r.site)) batch.records[i] = applyProfileToRecord(r, app.profiles.claimsFor(r.site, r.browser, r.browserMajor));
  }
  const reject = (reason: 'not_ready' | 'spool_full' | 'spool_error', retryAfter: number) => {
    request.rejectReason = reason;
    m.recordsRejected.inc({ reason }, n);
    return unavailable(retryAfter);
  };
  if (!app.storeStatus.ready) throw reject('not_ready', 5);
  if (!app.ingest.isDuplicate(batch.batchId) && !app.ingest.accepts(n)) throw reject('spool_full', app.ingest.retryAfterSeconds());
  // The IP is used for this lookup and goes no further: rows hold the country only.
  const country = app.countryOf(request.ip);
  let result;
  try {
    // So is the token budget's keyed hash of it (memory only): the row holds a flag, never the address.
    const admits = app.tokenBudget?.forAddress(request.ip);
    // Per site as stored: an unregistered hostname is no site (else each made-up name would be a fresh budget).
    const overTokenBudget = admits
      ? (r: HandshakeRecord) => !admits(r.site !== null && app.sites.has(r.site) ? r.site : null, r.clientToken)
      : undefined;
    result = await app.ingest.submit(batch, {
      country,
      receivedAt: now,
      isRegisteredSite: app.sites.has,
      overTokenBudget,
      overClientCap: app.clientCap.forBatch(),
      probeCrypto: app.siteCrypto.get,
    });
  } catch (err) {
    if (err instanceof SpoolFullError) throw reject('spool_full', app.ingest.retryAfterSeconds());
    request.log.error({ err: { message: (err as Error).message, code: (err as NodeJS.ErrnoException).code } }, 'spool write failed');
    throw reject('spool_error', 5);
  }
  if (result.status === 'duplicate') {
    request.rejectReason = 'duplicate';
    m.recordsRejected.inc({ reason: 'duplicate' }, n);
    return { accepted: 0, duplicate: true };
  }
  m.batchesAccepted.inc();
  m.recordsAccepted.inc({}, n);
  return { accepted: n };
}
