/**
 * POST /v1/handshakes: the schema check (hostnames normalised first), the optional read token (a site
 * owner's own synthetic runs), then the named ingest steps (ingest/steps.ts, run by ingest/submit.ts), then
 * the answer. Each rejection is counted on /metrics under the
 * reason its step gave.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { HandshakeBatch, MAX_RECORDS_PER_BATCH } from '@tlsrum/shared';
import { normalizeBatchSites } from './hostname';
import { ingestRateLimit } from '../platform/http/rate-limit';
import { ErrorResponse } from '../platform/http/responses';
import { ownerOfBatch } from '../sites/auth';
import { submitBatch } from './submit';

const handshakes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/v1/handshakes',
    {
      schema: {
        summary: 'Submit a batch of handshake records',
        description:
          "Without a token, anyone's records. With `Authorization: Bearer <a site's read token>`, the site owner's own synthetic runs (`pnpm synth --token`): every record must have source `synthetic` and that site, else the batch is refused (403) and nothing of it stored; an unknown token is refused (401). That site's token then reads them with `source=synthetic` without the people threshold (the answer says `ownSynthetic`).",
        security: [{}, { bearer: [] }],
        body: HandshakeBatch,
        response: {
          202: Type.Object({ accepted: Type.Integer(), duplicate: Type.Optional(Type.Boolean()) }),
          400: ErrorResponse,
          401: ErrorResponse,
          403: ErrorResponse,
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
      // With a site's read token the batch is that site's owner's own synthetic runs (ingest/steps.ts checks each record).
      const owner = await ownerOfBatch(app, request);
      return reply.status(202).send(await submitBatch(app, request, request.body, { owner }));
    },
  );
};

export default handshakes;
