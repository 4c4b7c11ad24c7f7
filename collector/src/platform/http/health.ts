import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

const health: FastifyPluginAsyncTypebox = async (app) => {
  /** Liveness: the process answers. */
  app.get('/healthz', async () => ({ status: 'ok' }));

  /** Readiness: migrations applied and the store answers a ping. */
  app.get('/readyz', async (_request, reply) => {
    const ping = app.storeStatus.ready ? await app.store.query.ping() : { success: false };
    if (ping.success)
      return { status: 'ready', store: app.store.kind, buffered: app.ingest.size, spoolBytes: app.ingest.spool.bytes };
    return reply.status(503).header('retry-after', '5').send({ status: 'unavailable', store: app.store.kind });
  });
};

export default health;
