/**
 * Starts the collector: reads the configuration, builds the app, listens, and on SIGTERM/SIGINT stops
 * taking requests, seals the spool and moves it into the store for up to SHUTDOWN_DRAIN_MS before
 * exiting 0; what the store did not take stays in the spool and is replayed at the next start.
 */
import { environmentOnly } from './platform/command-line';

const USAGE = `usage: pnpm start

Starts the tlsrum collector and serves the dashboard, on http://127.0.0.1:8787/ unless HOST and PORT say
otherwise. It takes the records the browser extension, the site beacon and the synthetic runner send, keeps
them in an embedded ClickHouse store in ./data (DATA_DIR; CLICKHOUSE_URL for a ClickHouse server or cluster)
and answers the dashboard's and the API's questions (the API's reference is at /docs). Ctrl-C stops it:
records it acknowledged but has not stored yet wait in its spool on disk for the next start.

Every setting is an environment variable: \`pnpm collector config\` lists each with its default and meaning
(docs/configuration.md). To look around with generated data: \`pnpm demo\`.`;

async function main(): Promise<void> {
  environmentOnly(process.argv.slice(2), USAGE, 'start');
  // Loaded once the arguments are known good: --help answers at once.
  const { adminRoutesNotice, ConfigError, loadConfig } = await import('./platform/config');
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
  const { buildApp } = await import('./app');
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
