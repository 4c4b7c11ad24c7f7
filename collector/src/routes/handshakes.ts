import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { HandshakeBatch } from '@tlsrum/shared';
import { toRow } from '../ingest/to-row';
import { httpError } from '../plugins/error-handler';
import { ErrorResponse } from '../schemas/responses';

/** Records whose timestamp is further than this from the receive time are refused: clock garbage. */
export const MAX_CLOCK_SKEW_MS = 24 * 3600_000;

const handshakes: FastifyPluginAsyncTypebox = async (app) => {
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
          503: ErrorResponse,
        },
      },
    },
    async (request, reply) => {
      const batch = request.body;
      const now = Date.now();
      batch.records.forEach((r, i) => {
        if (Math.abs(r.ts - now) > MAX_CLOCK_SKEW_MS) {
          throw httpError(400, `body/records/${i}/ts must be within 24 h of the collector's clock`);
        }
      });
      if (app.recentBatches.has(batch.batchId)) {
        return reply.status(202).send({ accepted: 0, duplicate: true });
      }
      if (!app.storeStatus.ready || !app.writeBuffer.accepts(batch.records.length)) {
        const retryAfter = app.storeStatus.ready ? app.writeBuffer.retryAfterSeconds() : 5;
        throw httpError(503, 'the collector cannot take more records now; retry later', { 'retry-after': String(retryAfter) });
      }
      // The IP is used for this lookup and goes no further.
      const country = app.countryOf(request.ip);
      const ctx = { batch, country, receivedAt: now, isRegisteredSite: app.sites.has };
      app.writeBuffer.add(batch.batchId, batch.records.map((r) => toRow(r, ctx)));
      app.recentBatches.add(batch.batchId);
      return reply.status(202).send({ accepted: batch.records.length });
    },
  );
};

export default handshakes;
