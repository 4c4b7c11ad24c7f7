/**
 * Operator commands: `pnpm collector <command>` (from the repository root).
 *
 *   migrate                          apply pending migrations to the configured store (DATA_DIR or CLICKHOUSE_URL)
 *   migrate --print                  print the single-node DDL instead of applying it
 *   migrate --cluster NAME --print   print the ON CLUSTER DDL (Replicated local tables + Distributed tables)
 *   migrate --cluster NAME           apply that DDL through CLICKHOUSE_URL (any node of the cluster)
 *   options: --database DB (default CLICKHOUSE_DATABASE or tlsrum), --out FILE (write instead of stdout)
 *   config                           every configuration variable: default, allowed values, meaning (docs/configuration.md's table)
 *   dataset --month YYYY-MM --out DIR
 *                                    write that month's open dataset: DIR/tlsrum-YYYY-MM.parquet, .csv and README.md
 *                                    (docs/dataset.md); DIR new or empty; the collector must not be running on DATA_DIR
 *   spool list [--json]              quarantined spool segments: id, rows, bytes, columns, first error, when
 *   spool replay (ID… | --all)       put them back for the collector to insert
 *   spool drop (ID… | --all)         delete them (recorded in quarantine/dropped.log)
 *   options: --spool-dir DIR (default SPOOL_DIR or DATA_DIR/spool)
 *
 * Run through pnpm (INIT_CWD set), relative paths in the environment are taken from the repository root,
 * as `pnpm start` takes them; pnpm runs this file in collector/.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ConfigError, configTable, loadConfig } from './platform/config';
import { runDatasetCommand, DATASET_USAGE } from './datasets/command';
import { runSpoolCommand, SPOOL_USAGE } from './ingest/spool/commands';
import { clusterStatements, printClusterScript, type ClusterLayout } from './platform/store/cluster';
import { openStore } from './platform/store/clients';
import { loadMigrations, migrate } from './platform/store/migrate';

const USAGE = `usage: pnpm collector migrate [--cluster NAME] [--database DB] [--print] [--out FILE]\n       pnpm collector config\n       ${DATASET_USAGE}\n${SPOOL_USAGE.replace('usage: ', '       ')}`;
const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The command line read, or what is wrong with it in a few words: Node's own message for a misspelt option
 * ("Unknown option '--bogus'. To specify a positional argument starting with a '-', place it at the end of the
 * command after '--', as in '-- \"--bogus\"") explains the parser, not the command.
 */
function parsedArgs(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        cluster: { type: 'string' },
        database: { type: 'string' },
        print: { type: 'boolean', default: false },
        out: { type: 'string' },
        all: { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
        'spool-dir': { type: 'string' },
        month: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (typeof code !== 'string' || !code.startsWith('ERR_PARSE_ARGS')) throw err;
    const option = /'(-[^' ]+)/.exec((err as Error).message)?.[1];
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return `unknown option ${option}`;
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE')
      return /does not take an argument/.test((err as Error).message)
        ? `${option} takes no value`
        : `${option} needs a value`;
    return (err as Error).message;
  }
}

export async function main(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
  out: (s: string) => void = (s) => process.stdout.write(s),
): Promise<number> {
  const parsed = parsedArgs(argv);
  if (typeof parsed === 'string') {
    out(`pnpm collector: ${parsed}\n${USAGE}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (positionals[0] === 'config' && positionals.length === 1) {
    out(`${configTable()}\n`);
    return 0;
  }
  const cwd = env.INIT_CWD ? REPO_ROOT : process.cwd();
  if (!values.help && positionals[0] === 'dataset' && positionals.length === 1) {
    // --out is a folder the person typed: relative to where they ran pnpm (INIT_CWD), not to collector/.
    return runDatasetCommand(
      { month: values.month, out: values.out ? resolve(env.INIT_CWD ?? process.cwd(), values.out) : undefined },
      env,
      cwd,
      out,
    );
  }
  if (!values.help && positionals[0] === 'spool') {
    const spoolDir = values['spool-dir'] ? resolve(process.cwd(), values['spool-dir']) : loadConfig(env, cwd).spoolDir;
    const [, action, ...ids] = positionals;
    return runSpoolCommand({ action, ids, all: values.all, json: values.json }, spoolDir, out);
  }
  if (values.help || positionals[0] !== 'migrate' || positionals.length > 1) {
    out(`${USAGE}\n`);
    return values.help ? 0 : 2;
  }
  const migrations = loadMigrations();
  const database = values.database ?? env.CLICKHOUSE_DATABASE ?? 'tlsrum';
  const layout: ClusterLayout | null = values.cluster ? { cluster: values.cluster, database } : null;
  const emit = (text: string) => (values.out ? writeFileSync(values.out, text) : out(text));

  if (values.print) {
    if (layout) emit(printClusterScript(migrations, layout));
    else
      emit(
        migrations
          .flatMap((m) => [`-- ${String(m.version).padStart(4, '0')}_${m.name}`, ...m.statements.map((s) => `${s};\n`)])
          .join('\n'),
      );
    return 0;
  }
  if (layout) clusterStatements(migrations, layout); // fail on an untranslatable migration before connecting
  const config = loadConfig(
    { ...env, ...(layout ? { CLICKHOUSE_CLUSTER: layout.cluster, CLICKHOUSE_DATABASE: database } : {}) },
    cwd,
  );
  const store = openStore(config);
  try {
    const applied = await migrate(store.ingest, migrations, store.cluster);
    out(applied.length ? `applied migrations ${applied.join(', ')}\n` : 'schema up to date\n');
  } finally {
    await store.close();
  }
  return 0;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: Error) => {
      const expected =
        err instanceof ConfigError ||
        err.name === 'ClusterDdlError' ||
        err.name === 'TypeError' ||
        err.name === 'SpoolCommandError' ||
        err.name === 'DatasetError';
      process.stderr.write(`${expected ? err.message : err.stack}\n`);
      process.exit(1);
    },
  );
}
