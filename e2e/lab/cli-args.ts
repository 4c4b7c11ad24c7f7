/**
 * The command line of the lab's commands (`pnpm lab`, `pnpm lab:accuracy`, `pnpm lab:seeds`): `--help` prints the
 * command's usage and exits; an option it does not know, or one missing its value, is an error naming it, before
 * anything starts (a misspelt `--quick` would otherwise run the full hour-long matrix).
 */
export interface CommandLine {
  /** What `--help` prints. */
  usage: string;
  /** Options that stand alone. */
  flags: readonly string[];
  /** Options followed by a value. */
  values: readonly string[];
  /** Words that are not options the command accepts (e.g. `start`), at most one of them. */
  commands?: readonly string[];
}

/** Help asked for; or the command word given (if any) and the first thing wrong with the arguments (if any). */
export type ArgsCheck = { help: true } | { help: false; command?: string; error?: string };

/** What `args` asks for: help, or nothing wrong, or the first thing wrong with them. */
export function checkArgs(args: readonly string[], line: CommandLine): ArgsCheck {
  if (args.includes('--help') || args.includes('-h') || args[0] === 'help') return { help: true };
  let command: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (line.values.includes(a)) {
      const v = args[i + 1];
      if (v === undefined || v.startsWith('--')) return { help: false, error: `${a} needs a value` };
      i++;
    } else if (line.flags.includes(a)) continue;
    else if (a.startsWith('-')) return { help: false, error: `unknown option "${a}"` };
    else if (line.commands?.includes(a)) {
      if (command) return { help: false, error: `"${a}" after "${command}": one command at a time` };
      command = a;
    } else
      return {
        help: false,
        error: line.commands?.length
          ? `unknown command "${a}" (one of: ${line.commands.join(', ')})`
          : `unexpected argument "${a}"`,
      };
  }
  return { help: false, ...(command ? { command } : {}) };
}

/**
 * Acts on checkArgs for `pnpm <command>`: prints the usage and exits 0 on --help, or says what is wrong and where
 * the options are listed and exits 2. Else returns the command word given, if any.
 */
export function handleArgs(args: readonly string[], line: CommandLine, command: string): { command?: string } {
  const r = checkArgs(args, line);
  if (r.help) {
    console.log(line.usage);
    process.exit(0);
  }
  if (r.error) {
    console.error(`pnpm ${command}: ${r.error}; \`pnpm ${command} --help\` lists what it accepts`);
    process.exit(2);
  }
  return r;
}
