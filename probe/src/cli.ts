/**
 * `pnpm probe URL… [options]` (every option in HELP below). Exit codes as the synthetic runner's: 0 every
 * URL probed, 1 some check failed (reasons in the output), 2 usage.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { ProbeResult } from '@tlsrum/shared';
import { DEFAULT_PROBE_OPTIONS, probe, probeUrl, type ProbeOptions } from './probe';
import { formatResult } from './table';

export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

export const USAGE = `usage: pnpm probe URL... [--json] [--runs N] [--ca FILE.pem] [--resolve HOST=IP]... [--insecure] [--timeout MS]`;

/** `pnpm probe --help`: every option in plain words, with examples, for a site owner. */
export const HELP = `${USAGE}

Checks how your HTTPS server sets up connections: how long each step takes (name lookup, TCP connect,
TLS handshake, first byte), which TLS versions it accepts, whether returning visitors can resume their
session, its certificate chain, OCSP stapling, HTTP/3 and post-quantum key exchange. Each finding says
what it means for your visitors and, when something is off, the nginx and Caddy setting that fixes it.
It only opens a few ordinary connections to the server: nothing is sent anywhere else.

URL                  the page to check, e.g. https://example.com/ (a bare host name means its home page).
                     Several URLs are checked one after the other.

options:
  --json             print the raw results as JSON (the format is described in docs/probe.md) instead of
                     the readable report; for scripts and monitoring.
  --runs N           how many fresh connections to time (1-100, default ${DEFAULT_PROBE_OPTIONS.runs}); the report shows the
                     middle value (median), so more runs give steadier numbers.
  --ca FILE.pem      also trust this certificate authority (PEM file), e.g. your company's own CA or a
                     self-signed certificate; may be given more than once. Without it such a certificate
                     is reported as not trusted.
  --resolve HOST=IP  connect to IP for HOST without asking DNS, like curl's --resolve; for a server that is
                     not in DNS yet, or one of several servers behind one name. May be given more than once.
  --insecure, -k     do not report an untrusted, expired or misnamed certificate as an error (everything
                     else is still checked).
  --timeout MS       give up on a step after MS milliseconds (100-600000, default ${DEFAULT_PROBE_OPTIONS.timeoutMs}).
  --help, -h         show this help.

examples:
  pnpm probe https://example.com/
  pnpm probe example.com www.example.com --runs 5
  pnpm probe https://intranet.example.test/ --ca company-ca.pem --resolve intranet.example.test=10.0.0.7
  pnpm probe https://example.com/ --json > probe.json

exit codes: 0 every URL was checked, 1 some step failed (the reason is printed), 2 wrong usage.`;

export class UsageError extends Error {}

export function parseProbeArgs(argv: string[]): { urls: string[]; json: boolean; options: ProbeOptions } | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        json: { type: 'boolean' },
        runs: { type: 'string' },
        ca: { type: 'string', multiple: true },
        resolve: { type: 'string', multiple: true },
        insecure: { type: 'boolean', short: 'k' },
        timeout: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return 'help';
  if (positionals.length === 0) throw new UsageError('no URL given');
  for (const u of positionals) {
    try {
      probeUrl(u);
    } catch (err) {
      throw new UsageError(`bad URL "${u}": ${(err as Error).message}`);
    }
  }
  const int = (v: string | undefined, name: string, min: number, max: number, dflt: number) => {
    if (v === undefined) return dflt;
    const n = /^\d+$/.test(v) ? Number(v) : NaN;
    if (!(n >= min && n <= max))
      throw new UsageError(`${name} must be a whole number from ${min} to ${max}, got "${v}"`);
    return n;
  };
  const resolve: Record<string, string> = {};
  for (const r of values.resolve ?? []) {
    const m = /^([^=]+)=(.+)$/.exec(r);
    if (!m) throw new UsageError(`--resolve takes HOST=IP, got "${r}"`);
    resolve[m[1]!] = m[2]!;
  }
  const ca = (values.ca ?? []).map((file) => {
    try {
      return readFileSync(file, 'utf8');
    } catch (err) {
      throw new UsageError(
        `cannot read --ca ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      );
    }
  });
  return {
    urls: positionals,
    json: values.json ?? false,
    options: {
      runs: int(values.runs, '--runs', 1, 100, DEFAULT_PROBE_OPTIONS.runs),
      timeoutMs: int(values.timeout, '--timeout', 100, 600_000, DEFAULT_PROBE_OPTIONS.timeoutMs),
      ca,
      resolve,
      insecure: values.insecure ?? false,
    },
  };
}

export async function main(
  argv: string[],
  out: (s: string) => void = console.log,
  err: (s: string) => void = console.error,
): Promise<number> {
  let args;
  try {
    args = parseProbeArgs(argv);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    err(`probe: ${e.message}\n${USAGE}`);
    return EXIT.usage;
  }
  if (args === 'help') {
    out(HELP);
    return EXIT.ok;
  }
  const results: ProbeResult[] = [];
  // One URL after the other: concurrent probes would time each other's load.
  for (const url of args.urls) {
    const r = await probe(url, args.options);
    results.push(r);
    if (!args.json) out(formatResult(r, args.options.runs) + '\n');
  }
  if (args.json) out(JSON.stringify(results.length === 1 ? results[0] : results, null, 2));
  return results.some((r) => r.errors.length > 0) ? EXIT.failed : EXIT.ok;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main(process.argv.slice(2)).then((code) => process.exit(code));
}
