import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { HandshakeBatch, MAX_RECORDS_PER_BATCH, rejectingRule, type HandshakeRecord } from '@tlsrum/shared';
import { normalizeBatchSites } from '../ingest/hostname';
import { SpoolFullError } from '../ingest/pipeline';
import { httpError } from '../plugins/error-handler';
import { ingestRateLimit } from '../plugins/rate-limit';
import { ErrorResponse } from '../schemas/responses';

/** Records whose timestamp is further than this from the receive time are refused: clock garbage. */
export const MAX_CLOCK_SKEW_MS = 24 * 3600_000;

const handshakes: FastifyPluginAsyncTypebox = async (app) => {
  const m = app.ingestMetrics;
  const unavailable = (retryAfter: number) =>
    httpError(503, 'the collector cannot take more records now; retry later', { 'retry-after': String(retryAfter) });

  app.post(
    '/v1/handshakes',
    {
      schema: {
        summary: 'Submit a batch of handshake records',
        body: HandshakeBatch,
        response: {
          202: Type.Object({ accepted: Type.Integer(), duplicate: Type.Optional(Type.Boolean()) }),
          400: ErrorResponse,
          413: ErrorResponse,
          415: ErrorResponse,
          429: ErrorResponse,
          503: ErrorResponse,
        },
      },
      // Per client address; only when RATE_LIMIT_PER_MINUTE > 0.
      config: { rateLimit: ingestRateLimit(app.config) },
      // Hostnames are normalised (lower case, IDNA) before the schema checks their form.
      preValidation: async (request) => normalizeBatchSites(request.body, MAX_RECORDS_PER_BATCH),
    },
    async (request, reply) => {
      const batch = request.body;
      const n = batch.records.length;
      const now = Date.now();
      batch.records.forEach((r, i) => {
        if (Math.abs(r.ts - now) > MAX_CLOCK_SKEW_MS) {
          throw httpError(400, `body/records/${i}/ts must be within 24 h of the collector's clock`);
        }
        // What no honest producer can send is refused, naming the rule (docs/integrity.md).
        const rule = rejectingRule(r, batch);
        if (rule) throw httpError(400, `body/records/${i} is implausible (rule ${rule.name}): ${rule.requirement}`);
      });
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
        });
      } catch (err) {
        if (err instanceof SpoolFullError) throw reject('spool_full', app.ingest.retryAfterSeconds());
        request.log.error({ err: { message: (err as Error).message, code: (err as NodeJS.ErrnoException).code } }, 'spool write failed');
        throw reject('spool_error', 5);
      }
      if (result.status === 'duplicate') {
        request.rejectReason = 'duplicate';
        m.recordsRejected.inc({ reason: 'duplicate' }, n);
        return reply.status(202).send({ accepted: 0, duplicate: true });
      }
      m.batchesAccepted.inc();
      m.recordsAccepted.inc({}, n);
      return reply.status(202).send({ accepted: n });
    },
  );
};

export default handshakes;
