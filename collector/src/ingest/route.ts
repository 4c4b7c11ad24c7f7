/**
 * POST /v1/handshakes: the schema check (hostnames normalised first), then the named ingest steps
 * (ingest/steps.ts), then the answer. Each rejection is counted on /metrics under the reason its step gave.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { HandshakeBatch, MAX_RECORDS_PER_BATCH, type HandshakeRecord } from '@tlsrum/shared';
import { normalizeBatchSites } from './hostname';
import { httpError } from '../platform/http/error-handler';
import { ingestRateLimit } from '../platform/http/rate-limit';
import { ErrorResponse } from '../platform/http/responses';
import { ingestBatch, isRejection, REJECTIONS, type IngestContext } from './steps';

const handshakes: FastifyPluginAsyncTypebox = async (app) => {
  const m = app.ingestMetrics;

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
      const ctx: IngestContext = {
        now: Date.now(),
        ip: request.ip,
        sites: app.sites,
        profiles: app.profiles,
        storeReady: () => app.storeStatus.ready,
        pipeline: app.ingest,
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
        return reply.status(202).send({ accepted: 0, duplicate: true });
      }
      m.batchesAccepted.inc();
      m.recordsAccepted.inc({}, n);
      return reply.status(202).send({ accepted: n });
    },
  );
};

export default handshakes;
