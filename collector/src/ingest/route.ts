/**
 * POST /v1/handshakes: the schema check (hostnames normalised first), then the named ingest steps
 * (ingest/steps.ts, run by ingest/submit.ts), then the answer. Each rejection is counted on /metrics under the
 * reason its step gave.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { HandshakeBatch, MAX_RECORDS_PER_BATCH } from '@tlsrum/shared';
import { normalizeBatchSites } from './hostname';
import { ingestRateLimit } from '../platform/http/rate-limit';
import { ErrorResponse } from '../platform/http/responses';
import { submitBatch } from './submit';

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
          429: ErrorResponse,
          503: ErrorResponse,
        },
      },
      // Per client address; only when RATE_LIMIT_PER_MINUTE > 0.
      config: { rateLimit: ingestRateLimit(app.config) },
      // Hostnames are normalised (lower case, IDNA) before the schema checks their form.
      preValidation: async (request) => normalizeBatchSites(request.body, MAX_RECORDS_PER_BATCH),
    },
    async (request, reply) => reply.status(202).send(await submitBatch(app, request, request.body)),
  );
};

export default handshakes;
