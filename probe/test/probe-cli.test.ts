/**
 * The probe's command line without servers: argument errors are usage errors (exit 2) with a clear message,
 * a closed port is a failed probe (exit 1) with a reason, and the process entry point exits with those codes.
 */
import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Value } from 'typebox/value';
import { describe, expect, it } from 'vitest';
import { ProbeResult } from '@tlsrum/shared';
import { EXIT, main } from '../src/cli';

const CLI = fileURLToPath(new URL('../src/cli.ts', import.meta.url));

async function run(args: string[]) {
  let out = '';
  let err = '';
  const code = await main(
    args,
    (s) => (out += s),
    (s) => (err += s),
  );
  return { code, out, err };
}

/** A loopback port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

describe('pnpm probe: usage', () => {
  it.each([
    [[], /no URL given/],
    [['http://example.test/'], /only https URLs can be probed/],
    [['https://a.test/', '--runs', 'x'], /--runs must be a whole number from 1 to 100/],
    [['https://a.test/', '--runs', '0'], /--runs must be a whole number/],
    [['https://a.test/', '--timeout', '5'], /--timeout must be a whole number from 100/],
    [['https://a.test/', '--resolve', 'a.test'], /--resolve takes HOST=IP/],
    [['https://a.test/', '--ca', '/nonexistent/ca.pem'], /cannot read --ca \/nonexistent\/ca.pem: ENOENT/],
    [['https://a.test/', '--bogus'], /Unknown option '--bogus'/],
  ])('%j → exit 2 with a reason', async (args, reason) => {
    const { code, err, out } = await run(args as string[]);
    expect(code).toBe(EXIT.usage);
    expect(err).toMatch(reason);
    expect(err).toContain('usage: pnpm probe URL...');
    expect(out).toBe('');
  });

  it('--help describes every option in words and gives examples, and exits 0', async () => {
    const { code, out } = await run(['--help']);
    expect(code).toBe(EXIT.ok);
    expect(out).toContain('usage: pnpm probe');
    // Every option the parser accepts has its own line of explanation.
    for (const option of [
      '--json',
      '--runs N',
      '--ca FILE.pem',
      '--resolve HOST=IP',
      '--insecure, -k',
      '--timeout MS',
      '--help, -h',
    ])
      expect(out).toMatch(new RegExp(`^  ${option.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s+\\S`, 'm'));
    expect(out.match(/^ {2}pnpm probe /gm)?.length).toBeGreaterThanOrEqual(2);
  });
});

describe('pnpm probe: unreachable', () => {
  it('a closed port is a failed probe with its reason, JSON still of the documented shape', async () => {
    const port = await closedPort();
    const { code, out } = await run([
      `https://probe.test:${port}/`,
      '--json',
      '--runs',
      '1',
      '--resolve',
      'probe.test=127.0.0.1',
    ]);
    expect(code).toBe(EXIT.failed);
    const r = JSON.parse(out) as ProbeResult;
    expect(Value.Check(ProbeResult, r)).toBe(true);
    expect(r.errors).toEqual([`tcp: cannot connect to 127.0.0.1:${port} (ECONNREFUSED)`]);
    expect(r.pq.supported).toBeNull();
  });

  it('the process exits with the same codes (2 usage, 1 failed)', async () => {
    const port = await closedPort();
    const exitOf = (args: string[]) =>
      new Promise<{ code: number | null; stdout: string }>((res) => {
        execFile(process.execPath, ['--import', 'tsx', CLI, ...args], (err, stdout) =>
          res({ code: err ? ((err as { code?: number }).code ?? null) : 0, stdout }),
        );
      });
    expect((await exitOf([])).code).toBe(2);
    const failed = await exitOf([`https://127.0.0.1:${port}/`, '--runs', '1']);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toContain(
      `Could not reach this server: tcp: cannot connect to 127.0.0.1:${port} (ECONNREFUSED).`,
    );
  });

  it('the readable report puts the one reason first, with what to check, and no table of unknowns', async () => {
    const port = await closedPort();
    const { code, out } = await run([`https://127.0.0.1:${port}/`, '--runs', '2']);
    expect(code).toBe(EXIT.failed);
    expect(out.split('\n').slice(0, 3)).toEqual([
      `https://127.0.0.1:${port}/`,
      `  ✗ Could not reach this server: tcp: cannot connect to 127.0.0.1:${port} (ECONNREFUSED).`,
      '      what to do: check that the server runs and listens on this port, and that no firewall is in the way.',
    ]);
    expect(out).not.toMatch(/unknown|phases \(median/);
  });
});
