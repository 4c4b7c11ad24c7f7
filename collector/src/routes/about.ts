import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';

const Nullable = (t: ReturnType<typeof Type.String>) => Type.Union([t, Type.Null()]);

export const AboutResponse = Type.Object({
  operator: Nullable(Type.String({ description: 'Who runs this collector (OPERATOR_NAME); null when not configured.' })),
  contact: Nullable(Type.String({ description: 'An e-mail address or URL to reach the operator (OPERATOR_CONTACT).' })),
  privacyPolicyUrl: Nullable(Type.String({ description: 'The operator’s privacy policy (PRIVACY_POLICY_URL).' })),
  retentionDays: Type.Integer({ description: 'Stored records are deleted after this many days (RETENTION_DAYS).' }),
  stores: Type.Object({
    country: Type.Boolean({ description: 'A country derived from the sending address is stored with each record.' }),
    address: Type.Boolean({ description: 'The sending address itself is stored (never).' }),
  }),
});

/** Who runs the collector and how long it keeps data: what the extension shows before anyone consents. */
const about: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/v1/about',
    {
      schema: {
        summary: 'Who runs this collector, how to reach them, how long records are kept',
        response: { 200: AboutResponse },
      },
    },
    async (_request, reply) => {
      reply.header('cache-control', 'public, max-age=300');
      const { operator, contact, privacyPolicyUrl } = app.config.about;
      return { operator, contact, privacyPolicyUrl, retentionDays: app.config.retentionDays, stores: { country: true, address: false } };
    },
  );
};

export default about;
