/**
 * The ingest path behind POST /v1/handshakes: the write-ahead spool and the flusher that moves its
 * segments into the store (ingest/pipeline.ts), their series on /metrics, the country lookup the route
 * makes before it drops the client address, and the drain on shutdown.
 */
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import { createCountryLookup, type CountryLookup } from './country';
import { ClientCapCounter, seedClientCap } from './client-cap';
import { IngestPipeline } from './pipeline';
import { QUARANTINE_DIR } from './spool/quarantine';
import { insertStatement } from './spool/format';
import { TokenBudget } from './token-budget';
import { scrapedCounter, scrapedGauge } from '../platform/metrics/scraped';

declare module 'fastify' {
  interface FastifyInstance {
    /** The durable ingest path: spool, flusher, duplicate check. */
    ingest: IngestPipeline;
    /** New client tokens per address, site and day (null: TOKENS_PER_ADDRESS = 0). */
    tokenBudget: TokenBudget | null;
    /** The per-client cap of figures of whole days, counted at ingest. */
    clientCap: ClientCapCounter;
    /** Settles once the per-client cap's counts of the open days have been read from the store (or could not be). */
    clientCapSeeded: Promise<void>;
    countryOf: CountryLookup;
  }
}

const ingestPlugin: FastifyPluginAsync = async (app) => {
  const { config, store, storeStatus } = app;
  const m = app.ingestMetrics;
  const ingest = new IngestPipeline({
    spoolDir: config.spoolDir,
    spoolMaxBytes: config.spoolMaxBytes,
    maxBufferedRows: config.maxBufferedRows,
    flushMaxRows: config.flushMaxRows,
    flushIntervalMs: config.flushIntervalMs,
    recentBatches: config.recentBatches,
    whenReady: storeStatus.whenReady,
    insert: async (content, token) => {
      // Rows as they were spooled, sent as is, under the columns the segment records. The ingest client does
      // nothing else after start-up: chDB keeps a query's settings for the session, and a stale token must not leak.
      const result = await store.ingest.exec({
        query: insertStatement(content),
        values: Readable.from([Buffer.from(content.rows)], { objectMode: false }),
        clickhouse_settings: { insert_deduplication_token: token, insert_deduplicate: 1 },
      });
      for await (const _ of result.stream) void _;
      // Rows of a closed hour (a spool drained after a long outage) change buckets a time series keeps.
      app.closedBuckets.noteStored(content);
    },
    storedBatchIds: async (batchIds) => {
      // On the ingest client: the flusher is its only other user and runs one thing at a time.
      const rs = await store.ingest.query({
        query: 'SELECT DISTINCT toString(batchId) AS id FROM handshakes WHERE batchId IN {ids:Array(UUID)}',
        query_params: { ids: batchIds },
        format: 'JSONEachRow',
      });
      return new Set((await rs.json<{ id: string }>()).map((r) => r.id.toLowerCase()));
    },
    onFlushed: (segment, ms) => {
      m.flushDuration.observe(ms / 1000);
      m.rowsFlushed.inc({}, segment.rows);
      app.log.debug({ rows: segment.rows, ms: Math.round(ms) }, 'flushed');
    },
    onStoreError: (err, attempt, retryInMs) => {
      m.storeErrors.inc();
      app.log.error({ err: { message: (err as Error).message }, attempt, retryInMs }, 'insert failed; will retry');
    },
    quarantineAfterTries: config.spoolQuarantineAfterTries,
    onQuarantined: (segment, id, reason) => {
      app.log.error(
        {
          segment: id,
          rows: segment.rows,
          tries: reason.tries,
          err: { message: reason.error },
          quarantine: join(config.spoolDir, QUARANTINE_DIR),
        },
        'the store refuses this spool segment for its content: moved to the quarantine (pnpm collector spool list)',
      );
    },
    onReplay: ({ segments, quarantined, errors }) => {
      if (segments.length)
        app.log.warn(
          { segments: segments.length, rows: segments.reduce((n, s) => n + s.rows, 0) },
          'replaying segments put back from the quarantine',
        );
      if (quarantined.length)
        app.log.error(
          { segments: quarantined },
          'segments put back for replay cannot be read: moved to the quarantine again',
        );
      if (errors.length) app.log.error({ errors }, 'segments put back for replay could not be taken in; trying again');
    },
  });
  if (ingest.recovered.segments > 0)
    app.log.warn(ingest.recovered, 'replaying spool segments left by the previous run');
  if (ingest.recovered.quarantined.length > 0) {
    app.log.error(
      { segments: ingest.recovered.quarantined },
      'spool segments this release cannot read: moved to the quarantine (pnpm collector spool list)',
    );
  }
  if (ingest.recovered.replayErrors.length > 0) {
    app.log.error(
      { errors: ingest.recovered.replayErrors },
      'segments put back for replay could not be taken in; trying again',
    );
  }
  const registry = app.registry;
  scrapedGauge(registry, {
    name: 'tlsrum_spool_bytes',
    help: 'Bytes of accepted batches in the spool, not yet in the store.',
    read: () => ingest.spool.bytes,
  });
  scrapedGauge(registry, {
    name: 'tlsrum_spool_rows',
    help: 'Records in the spool, not yet in the store.',
    read: () => ingest.size,
  });
  scrapedGauge(registry, {
    name: 'tlsrum_spool_segments',
    help: 'Sealed spool segments waiting for the store.',
    read: () => ingest.spool.sealedCount,
  });
  scrapedGauge(registry, {
    name: 'tlsrum_spool_oldest_age_seconds',
    help: 'Age of the oldest record in the spool.',
    read: () => ingest.spool.oldestAgeMs() / 1000,
  });
  scrapedGauge(registry, {
    name: 'tlsrum_spool_quarantined_segments',
    help: 'Spool segments the store refused for their content, waiting for an operator.',
    read: () => ingest.quarantinedSegments(),
  });
  scrapedGauge(registry, {
    name: 'tlsrum_spool_max_bytes',
    help: 'Spool cap: ingest answers 503 above it.',
    read: () => config.spoolMaxBytes,
  });
  scrapedCounter(registry, {
    name: 'tlsrum_spool_fsyncs_total',
    help: 'Group commits: one fdatasync for every batch written in the round.',
    read: () => ingest.spool.fsyncs,
  });
  scrapedGauge(registry, {
    name: 'tlsrum_store_consecutive_failures',
    help: 'Failed inserts in a row (0 when the store is healthy).',
    read: () => ingest.flusher.consecutiveFailures,
  });

  app.decorate('ingest', ingest);
  const clientCap = new ClientCapCounter({ perCell: config.clientRecordsPerCellDay, maxEntries: config.clientCapKeys });
  app.decorate('clientCap', clientCap);
  // A restart does not reset the per-client cap: once the store is ready, the counts of the days still
  // open are taken from the records stored before this process started.
  const startedAt = Date.now();
  const seeding =
    config.clientRecordsPerCellDay > 0
      ? app.storeStatus.whenReady.then(async () => {
          try {
            const keys = await seedClientCap(clientCap, app.store.query, startedAt, config.clientCapKeys);
            if (keys > 0) app.log.info({ keys }, 'per-client cap: counts of the open days taken from the store');
          } catch (err) {
            app.log.warn(
              { err: { message: (err as Error).message } },
              'per-client cap: the stored counts of the open days could not be read; counting from this start',
            );
          }
        })
      : Promise.resolve();
  app.decorate('clientCapSeeded', seeding);
  app.decorate(
    'tokenBudget',
    config.tokensPerAddress > 0
      ? new TokenBudget({ perAddress: config.tokensPerAddress, maxEntries: config.tokenBudgetEntries })
      : null,
  );
  app.decorate('countryOf', createCountryLookup({ dbPath: config.geoipDb, overridesPath: config.geoipOverrides }));

  app.addHook('onClose', async () => {
    // Not racing the store's close (its plugin's onClose runs after this one); a store that never became
    // ready has nothing being read.
    if (app.storeStatus.ready) await Promise.race([seeding, new Promise((r) => setTimeout(r, 10_000).unref())]);
    // Graceful shutdown drains the spool into the store; what a failing store leaves stays on disk and
    // is replayed at the next start, so nothing acknowledged is lost either way.
    await ingest.close(config.shutdownDrainMs);
    if (ingest.size > 0)
      app.log.warn(
        { rows: ingest.size },
        'shutdown before the store took every row: kept in the spool for the next start',
      );
  });
};

/** Not encapsulated: the ingest route, /readyz and the tests use `app.ingest`. */
export default fp(ingestPlugin, { name: 'ingest', dependencies: ['store', 'metrics'] });
