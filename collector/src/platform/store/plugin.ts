/**
 * Opens the store, applies migrations and retention, and keeps trying in the background when the store
 * is not reachable at start (a ClickHouse server still booting): meanwhile ingest and queries answer
 * 503 + Retry-After and /readyz says unavailable, rather than the process dying or data being dropped.
 */
import type { FastifyBaseLogger, FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import { roundPhase } from '@tlsrum/shared';
import type { Config } from '../config';
import { openStore, type Store } from './clients';
import { applyRetention, CLIENT_SAMPLE_RETENTION, migrate, SITE_PROBES_RETENTION } from './migrate';
import type { QueryTiming } from './query-pool';
import { scrapedCounter, scrapedGauge } from '../metrics/scraped';

declare module 'fastify' {
  interface FastifyInstance {
    store: Store;
    storeStatus: StoreStatus;
  }
}

export interface StoreStatus {
  ready: boolean;
  /** Resolves when migrations are applied (the first time). */
  whenReady: Promise<void>;
  stop(): void;
}

function prepareStore(
  store: Store,
  config: Pick<Config, 'retentionDays'> & { probe: Pick<Config['probe'], 'retentionDays'> },
  log: FastifyBaseLogger,
  retryMs = 5000,
): StoreStatus {
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  let resolveReady!: () => void;
  const status: StoreStatus = {
    ready: false,
    whenReady: new Promise((r) => (resolveReady = r)),
    stop: () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
  const attempt = async () => {
    try {
      const applied = await migrate(store.ingest, undefined, store.cluster);
      if (applied.length) log.info({ applied }, 'migrations applied');
      if (await applyRetention(store.ingest, config.retentionDays, store.cluster))
        log.info({ days: config.retentionDays }, 'retention set');
      await applyRetention(store.ingest, config.retentionDays, store.cluster, CLIENT_SAMPLE_RETENTION);
      if (await applyRetention(store.ingest, config.probe.retentionDays, store.cluster, SITE_PROBES_RETENTION))
        log.info({ days: config.probe.retentionDays }, 'probe history retention set');
      status.ready = true;
      resolveReady();
    } catch (err) {
      log.error({ err: { message: (err as Error).message } }, `store not ready; retrying in ${retryMs} ms`);
      if (!stopped) timer = setTimeout(attempt, retryMs);
    }
  };
  void attempt();
  return status;
}

const storePlugin: FastifyPluginAsync = async (app) => {
  const { config } = app;
  const store = openStore({
    ...config,
    queryPool: {
      size: config.queryConcurrency,
      queueMax: config.queryQueueMax,
      timeoutMs: config.queryTimeoutMs,
      maxMemoryBytes: config.queryMaxMemoryBytes,
      // LOG_LEVEL=debug: each read query's wait, store time and SQL (its parameters are not logged).
      ...(config.logLevel === 'debug' || config.logLevel === 'trace'
        ? {
            onQuery: (q: QueryTiming) =>
              app.log.debug(
                {
                  waitMs: roundPhase(q.waitMs),
                  runMs: roundPhase(q.runMs),
                  failed: q.failed,
                  ...(q.kind === 'light' ? {} : { kind: q.kind }),
                  sql: q.sql.replace(/\s+/g, ' '),
                },
                'store query',
              ),
          }
        : {}),
    },
  });
  const status = prepareStore(store, config, app.log);
  // The read pool as operators watch it (docs/operations.md): queries by how they took their turn, refusals, slots.
  const pool = store.queryPool;
  scrapedCounter(app.registry, {
    name: 'tlsrum_read_queries_total',
    help: "Read queries run, by kind: a light reader's, a heavy reader's (the raw table, the what-if's connections), background work.",
    labelNames: ['kind'],
    read: () => [
      [{ kind: 'light' }, pool.counts.run - pool.counts.heavy - pool.counts.background],
      [{ kind: 'heavy' }, pool.counts.heavy],
      [{ kind: 'background' }, pool.counts.background],
    ],
  });
  scrapedCounter(app.registry, {
    name: 'tlsrum_read_queries_refused_total',
    help: 'Read queries not run: refused as busy (503 + Retry-After), or dropped because their reader went away while they waited.',
    labelNames: ['reason'],
    read: () => [
      [{ reason: 'busy' }, pool.counts.busy],
      [{ reason: 'abandoned' }, pool.counts.abandoned],
    ],
  });
  scrapedGauge(app.registry, {
    name: 'tlsrum_read_slots_busy',
    help: 'Read queries running now (at most QUERY_CONCURRENCY).',
    read: () => pool.active,
  });
  scrapedGauge(app.registry, {
    name: 'tlsrum_read_queries_waiting',
    help: 'Read queries waiting for a slot now (at most QUERY_QUEUE_MAX).',
    read: () => pool.queued,
  });
  app.decorate('store', store);
  app.decorate('storeStatus', status);
  // Fastify runs onClose hooks in reverse order of registration: the plugins registered after this one
  // (ingest draining the spool, alerts) have stopped using the store when it closes.
  app.addHook('onClose', async () => {
    status.stop();
    await store.close();
  });
};

/** Not encapsulated: routes and plugins read `app.store` and `app.storeStatus`. */
export default fp(storePlugin, { name: 'store', decorators: { fastify: ['config', 'registry'] } });
