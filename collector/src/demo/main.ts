/**
 * `pnpm demo`: the collector with a generated month of data, so the dashboard has something to show.
 * Same HOST / PORT / DATA_DIR as `pnpm start` (DATA_DIR defaults to ./data-demo here, to keep demo data
 * out of a real store). The data (DEMO_RECORDS, default 1.2 M over 30 days; in bulk, demo/bulk-load.ts) and the
 * demo sites are loaded on the first run only; later runs start at once.
 */
import { Type } from 'typebox';
import { environmentOnly } from '../platform/command-line';
import { ConfigError, loadConfig } from '../platform/config';
import { nullable, parseEnv } from '../platform/env-schema';
import { MONTH_PATTERN, parseMonth } from '../datasets/month';
import { newReadToken } from '../sites/auth';
import { loadDemoData } from './bulk-load';
import { hasDemoData } from './generate';
import { demoNotes } from './notes';
import { DEMO_VISIT_RECORDS, SITES } from './profiles';

/** The demo's own variable, read like the collector's (env-schema.ts). */
const DemoSchema = Type.Object({
  records: Type.Integer({
    env: 'DEMO_RECORDS',
    default: 1_200_000,
    minimum: 1000,
    maximum: 100_000_000,
    description: 'records generated on the first run',
  }),
  month: nullable(Type.String({ pattern: MONTH_PATTERN, expected: 'a month, YYYY-MM' }), {
    env: 'DEMO_MONTH',
    description:
      'generate that whole UTC month instead of the last 30 days (a month to export as an open dataset: docs/dataset.md)',
  }),
});

const USAGE = `usage: pnpm demo

The collector and its dashboard with generated data, to look around. On its first run (about two minutes on
a 2-core machine) it generates DEMO_RECORDS (1 200 000) records of fictional sites over the last 30 days
(DEMO_MONTH=YYYY-MM: that whole month instead) into ./data-demo (DATA_DIR), registers the demo sites and
prints their read tokens (shown once); later runs start at once. Then it prints the dashboard's address.

Otherwise the same as \`pnpm start\`: every setting is an environment variable, \`pnpm collector config\` lists
them.`;

async function main(): Promise<void> {
  environmentOnly(process.argv.slice(2), USAGE, 'demo');
  let config, records, month;
  try {
    // The demo sites are fictional hostnames: scheduled TLS probes stay off unless asked for; so does the
    // monthly dataset, which would otherwise publish a month the demo is still generating
    // (`pnpm collector dataset` exports one: docs/dataset.md).
    config = loadConfig({
      PROBE_INTERVAL_MS: '0',
      DATASET_MONTHLY_EXPORT: 'false',
      ...process.env,
      DATA_DIR: process.env.DATA_DIR || './data-demo',
    });
    ({ records, month } = parseEnv(DemoSchema, process.env));
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`tlsrum demo: configuration error: ${err.message}`);
      process.exit(2);
    }
    throw err;
  }

  // Loaded once the arguments and the configuration are known good: --help answers without loading the store.
  const { buildApp } = await import('../app');
  const app = await buildApp(config);
  await app.storeStatus.whenReady;
  if (!(await hasDemoData(app.store.query))) {
    console.log(
      `tlsrum demo: generating ${records.toLocaleString('en')} records over ${month ?? '30 days'} into ${config.dataDir} (first run only)…`,
    );
    const started = Date.now();
    const range = month ? parseMonth(month) : null;
    await loadDemoData(app.store.ingest, {
      records,
      visitRecords: DEMO_VISIT_RECORDS,
      ...(range ? { end: range.to, days: (range.to - range.from) / 86_400_000 } : {}),
      cluster: app.store.cluster !== null,
      onProgress: (share) => process.stdout.write(`\r  ${Math.floor(share * 100)} %`),
    });
    console.log(`\r  done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    console.log('tlsrum demo: registering the demo sites; their read tokens (shown once):');
    for (const site of SITES.filter((s) => s.hostname)) {
      const { token, hash } = newReadToken();
      await app.sites.register(site.hostname, hash);
      console.log(`  ${site.hostname.padEnd(20)} ${token}`);
    }
  }

  const shutdown = () =>
    void app.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
  await app.listen({ host: config.host, port: config.port });
  const port = (app.server.address() as { port: number }).port;
  const base = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  console.log(`tlsrum demo: dashboard on ${base}/  (API docs at /docs)`);
  for (const line of demoNotes(config, base)) console.log(line);
}

main().catch((err) => {
  console.error('tlsrum demo failed:', err);
  process.exit(1);
});
