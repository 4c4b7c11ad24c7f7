import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AboutAnswer } from '@tlsrum/shared/query/schemas';

/** Who runs the collector and how long it keeps data: what the extension shows before anyone consents. */
const about: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/v1/about',
    {
      schema: {
        summary: 'Who runs this collector, how to reach them, how long records are kept',
        response: { 200: AboutAnswer },
      },
    },
    async (_request, reply) => {
      reply.header('cache-control', 'public, max-age=300');
      const { operator, contact, privacyPolicyUrl } = app.config.about;
      return {
        operator,
        contact,
        privacyPolicyUrl,
        retentionDays: app.config.retentionDays,
        stores: { country: true, address: false },
      };
    },
  );
};

export default about;
