/**
 * OpenAPI document generated from the routes' TypeBox schemas, with Swagger UI at /docs (the JSON at
 * /docs/json). Registered before the routes so that every route is described.
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';

const docs: FastifyPluginAsync = async (app) => {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'tlsrum collector',
        version: '1',
        description:
          'Ingest of TLS handshake records and the query API behind the dashboard. Query answers never give numbers for a group with fewer distinct clients than `minClients`. Without a token the query routes answer for every site together; a site read token (from `POST /v1/sites`) reads that site only.',
      },
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'Admin token (ADMIN_TOKEN) or a site read token.' },
        },
      },
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
};

/** Not encapsulated: the document describes the routes registered after it, wherever they are. */
export default fp(docs, { name: 'docs' });
