/**
 * The command line of a command configured only through its environment (`pnpm start`, `pnpm demo`): `--help`
 * prints its usage and exits 0; any other argument is refused with exit code 2, saying where its settings are,
 * before anything starts (`pnpm demo --help` would otherwise generate the demo's month of data).
 */
export function environmentOnly(args: readonly string[], usage: string, command: string): void {
  if (args.length === 0) return;
  if (args.includes('--help') || args.includes('-h') || args[0] === 'help') {
    console.log(usage);
    process.exit(0);
  }
  console.error(
    `pnpm ${command} takes no arguments (got ${args.map((a) => JSON.stringify(a)).join(' ')}): every setting is an ` +
      'environment variable, `pnpm collector config` lists them; `pnpm ' +
      `${command} --help\` says what it does`,
  );
  process.exit(2);
}
