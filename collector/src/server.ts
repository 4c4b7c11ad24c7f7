/**
 * Starts the collector: reads the configuration, builds the app, listens, and on SIGTERM/SIGINT stops
 * taking requests, seals the spool and moves it into the store for up to SHUTDOWN_DRAIN_MS before
 * exiting 0; what the store did not take stays in the spool and is replayed at the next start.
 */
import { buildApp } from './app';
import { adminRoutesNotice, ConfigError, loadConfig } from './platform/config';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`tlsrum collector: configuration error: ${err.message}`);
      process.exit(2);
    }
    throw err;
  }
  const app = await buildApp(config);
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: flushing buffered rows');
    app.close().then(
      () => process.exit(0),
      (err) => {
        app.log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));

  await app.listen({ host: config.host, port: config.port });
  const waiting = setTimeout(
    () => console.log('tlsrum collector: waiting for the store (ingest answers 503 until it is ready)'),
    2000,
  );
  await app.storeStatus.whenReady;
  clearTimeout(waiting);
  const where = config.clickhouse
    ? `ClickHouse server ${new URL(config.clickhouse.url).host}`
    : `embedded store in ${config.dataDir}`;
  console.log(`tlsrum collector: ${adminRoutesNotice(config)}`);
  console.log(
    `tlsrum collector listening on http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${(app.server.address() as { port: number }).port} (${where})`,
  );
}

main().catch((err) => {
  console.error('tlsrum collector failed to start:', err);
  process.exit(1);
});
