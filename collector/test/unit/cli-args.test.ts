/**
 * `pnpm collector` refuses a command line it cannot read with a sentence about that command line and its
 * usage (exit code 2), before it reads the configuration or opens anything.
 */
import { expect, it } from 'vitest';
import { main } from '../../src/cli';

const run = async (...args: string[]) => {
  let text = '';
  // An environment whose store could not be opened: a refusal never gets that far.
  const code = await main(args, { DATA_DIR: '/nonexistent/tlsrum', CLICKHOUSE_URL: 'not a url' }, (s) => (text += s));
  return { code, first: text.split('\n')[0], text };
};

it.each([
  [['migrate', '--bogus'], 'pnpm collector: unknown option --bogus'],
  [['config', '-x'], 'pnpm collector: unknown option -x'],
  [['spool', 'list', '--spool-dir'], 'pnpm collector: --spool-dir needs a value'],
  [['dataset', '--month'], 'pnpm collector: --month needs a value'],
  [['migrate', '--print=yes'], 'pnpm collector: --print takes no value'],
])('refuses %j with what is wrong and the usage, exit code 2', async (args, sentence) => {
  const { code, first, text } = await run(...args);
  expect(code).toBe(2);
  expect(first).toBe(sentence);
  expect(text).toContain('usage: pnpm collector migrate');
  expect(text).not.toMatch(/positional argument|ERR_PARSE_ARGS/);
});

it('prints the usage on --help, exit code 0', async () => {
  const { code, first } = await run('--help');
  expect(code).toBe(0);
  expect(first).toMatch(/^usage: pnpm collector migrate/);
});
