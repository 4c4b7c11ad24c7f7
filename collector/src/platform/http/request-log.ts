/**
 * One log line per request with the route pattern, status and time — never the URL (it may carry a
 * token or filters) or the client address. Fastify's own request logging is off (app.ts).
 */
import type { FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';

const requestLog: FastifyPluginAsync = async (app) => {
  app.addHook('onResponse', async (request, reply) => {
    request.log.info(
      {
        method: request.method,
        route: request.routeOptions.url ?? 'unmatched',
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime),
      },
      'request',
    );
  });
};

/** Not encapsulated: every request is logged. */
export default fp(requestLog, { name: 'request-log' });
