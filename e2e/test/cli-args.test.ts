/**
 * The lab's commands as a person types them: `--help` prints what the command does and its options without
 * starting anything; a misspelt option or a stray word is refused before the lab starts (a misspelt `--quick`
 * would otherwise run the hour-long full matrix).
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkArgs, type CommandLine } from '../lab/cli-args';

const e2e = fileURLToPath(new URL('..', import.meta.url));
const LINE: CommandLine = { usage: 'usage', flags: ['--quick'], values: ['--runs'], commands: ['start', 'stop'] };

describe('checkArgs', () => {
  it('asks for help on --help, -h or help, wherever --help stands', () => {
    for (const args of [['--help'], ['-h'], ['help'], ['--quick', '--help'], ['--runs', '3', '-h']])
      expect(checkArgs(args, LINE), args.join(' ')).toEqual({ help: true });
  });

  it('accepts known options, option values and one command word, and returns the command', () => {
    expect(checkArgs([], LINE)).toEqual({ help: false });
    expect(checkArgs(['--quick', '--runs', '3'], LINE)).toEqual({ help: false });
    expect(checkArgs(['--runs', '3', 'stop'], LINE)).toEqual({ help: false, command: 'stop' });
  });

  it('names the first thing wrong: an unknown option, a missing value, a stray word, a second command', () => {
    const error = (args: string[], line = LINE) => (checkArgs(args, line) as { error?: string }).error;
    expect(error(['--qiuck'])).toBe('unknown option "--qiuck"');
    expect(error(['--runs'])).toBe('--runs needs a value');
    expect(error(['--runs', '--quick'])).toBe('--runs needs a value');
    expect(error(['strat'])).toBe('unknown command "strat" (one of: start, stop)');
    expect(error(['start', 'stop'])).toBe('"stop" after "start": one command at a time');
    expect(error(['x'], { ...LINE, commands: [] })).toBe('unexpected argument "x"');
  });
});

/** Runs one of the lab's command files as `pnpm <command>` runs it. */
const run = (file: string, args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', file, ...args], { cwd: e2e, encoding: 'utf8', timeout: 60_000 });

describe.each([
  ['lab', 'lab/cli.ts', ['--dir', '--no-quic', 'stop', 'status']],
  ['lab:accuracy', 'accuracy/cli.ts', ['--quick', '--runs', '--profiles', '--servers', '--no-beacon', '--render']],
  ['lab:seeds', 'seeds/cli.ts', ['--out', '--save-data', '--keep']],
])('pnpm %s', (command, file, options) => {
  it('--help: prints its usage and every option, starts nothing, exits 0', () => {
    const r = run(file, ['--help']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^usage: pnpm ${command} `));
    for (const o of options) expect(r.stdout).toContain(o);
  });

  it('a misspelt option: says which and where the options are listed, starts nothing, exits 2', () => {
    const r = run(file, ['--qiuck']);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim()).toBe(
      `pnpm ${command}: unknown option "--qiuck"; \`pnpm ${command} --help\` lists what it accepts`,
    );
    expect(r.status).toBe(2);
  });
});
