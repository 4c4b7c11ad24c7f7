/**
 * `pnpm collector dataset --month YYYY-MM --out DIR`: one month's open dataset from the configured store
 * (DATA_DIR or CLICKHOUSE_URL), with the collector's own DATASET_MIN_CLIENTS, RETENTION_DAYS and cap.
 * Everything that can be checked without the store (the month, the folder) is checked before opening it.
 */
import { loadConfig } from '../platform/config';
import { openStore } from '../platform/store/clients';
import { DatasetError, exportMonth } from './export';
import { checkExportable, parseMonth } from './month';

export const DATASET_USAGE = 'pnpm collector dataset --month YYYY-MM --out DIR';

export async function runDatasetCommand(
  args: { month?: string; out?: string },
  env: NodeJS.ProcessEnv,
  cwd: string,
  print: (s: string) => void,
  now = Date.now(),
): Promise<number> {
  if (!args.month || !args.out) {
    print(
      `usage: ${DATASET_USAGE}\n  writes DIR/tlsrum-YYYY-MM.parquet, DIR/tlsrum-YYYY-MM.csv and DIR/README.md (docs/dataset.md)\n`,
    );
    return 2;
  }
  const config = loadConfig(env, cwd);
  checkExportable(parseMonth(args.month), now, config.retentionDays);
  // chDB lets one process at a time open a data folder: say so instead of the engine's lock error.
  // The engine's own reason ("Cannot lock file …/status") goes to stderr only; its error just says it failed.
  const inUse = (err: unknown) =>
    config.clickhouse === null && (err as Error).name === 'ChdbConnectionError'
      ? new DatasetError(
          `cannot open the store in ${config.dataDir}: is a collector running on it? Only one process at a time can open it: stop the collector first, or let its monthly export write the month into DATASETS_DIR`,
        )
      : err;
  let store;
  try {
    store = openStore(config);
  } catch (err) {
    throw inUse(err);
  }
  try {
    let done;
    try {
      done = await exportMonth(store.query, {
        month: args.month,
        outDir: args.out,
        minClients: config.datasets.minClients,
        retentionDays: config.retentionDays,
        clientCap: config.clientRecordsPerCellDay,
        publisher: config.about.operator,
        now,
      });
    } catch (err) {
      throw inUse(err);
    }
    print(`wrote ${done.rows} rows (${done.records} connections) of ${done.month}:\n`);
    print(`  ${done.files.parquet}  ${done.bytes.parquet} bytes  sha256 ${done.sha256.parquet}\n`);
    print(`  ${done.files.csv}  ${done.bytes.csv} bytes  sha256 ${done.sha256.csv}\n`);
    print(`  ${done.files.readme}\n`);
    return 0;
  } finally {
    await store.close();
  }
}
