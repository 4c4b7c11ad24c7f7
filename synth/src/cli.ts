/**
 * `pnpm synth [URL…] [options]`: the synthetic runner's command line (every option in HELP below).
 * Exit codes: 0 all visits succeeded, 1 some visit failed, 2 usage, 3 browser missing, 4 collector.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { CollectorError, sendRecords } from './collector-client';
import { BrowserMissingError, runSynthetic, SynthOptionsError, type SyntheticOptions } from './index';
import { DEFAULT_EXECUTABLES, MAX_RUNS } from './options';
import { writeRecords, formatOf } from './output';
import { progressBar } from './progress';
import { formatSummary, summarize } from './summary';

export const EXIT = { ok: 0, visitsFailed: 1, usage: 2, browserMissing: 3, collector: 4 } as const;
export const AGENT = { name: 'tlsrum-synth', version: '0.1.0' };
/** Where the read token may come from instead of --token (a command line is seen by `ps` and kept in history). */
export const TOKEN_ENV = 'TLSRUM_READ_TOKEN';

export const USAGE = `usage: pnpm synth [URL...] [--urls FILE] [--browser chromium|firefox] [--mode cold|warm] [--runs N]
       [--proxy socks5://HOST:PORT] [--resolve PATTERN=IP]... [--block-other-hosts] [--ca FILE.pem] [--spki HASH]...
       [--h3 HOST:PORT]... [--executable PATH] [--timeout MS] [--collector URL [--token TOKEN]]
       [--out FILE.ndjson|FILE.csv] [--quiet]`;

/** `pnpm synth --help`: every option in plain words, with examples, for a site owner. */
export const HELP = `${USAGE}

Visits your pages in a real browser (Chromium or Firefox, without a window) and measures every new
secure connection the way your visitors' browsers make it: how long the TLS handshake and the whole
connection set-up took, which TLS version was used and whether the session was resumed. It prints a
summary per URL; with --out it keeps one record per connection in a file, with --collector it sends
them to your tlsrum collector. Records never contain the URL, a path or an address.

URL                       a page to visit, e.g. https://example.com/ (https only). Several may be given.

options:
  --urls FILE             read more URLs from FILE, one per line (# starts a comment).
  --browser NAME          chromium (default) or firefox (Firefox ESR).
  --mode cold|warm        cold (default): every visit is a first visit, with no saved session.
                          warm: one visit first saves the session, then each counted visit comes back
                          with it, as a returning visitor does: shows whether resumption works.
  --runs N                visits per URL (1-${MAX_RUNS}, default 1); more visits give steadier p50/p75.
  --out FILE              keep the records: FILE.ndjson or FILE.jsonl (one JSON record per line) or
                          FILE.csv (one row per record, with a header row).
  --collector URL         send the records to your collector, e.g. http://127.0.0.1:8787 (stored as
                          synthetic, apart from real visitors).
  --token TOKEN           your site's read token, sent with the records to --collector: your runs are
                          then shown to you even though they are one client (Source "synthetic" in the
                          dashboard, with your token); to anyone else they are synthetic records like
                          any. Every URL must then be on your site. Or set ${TOKEN_ENV} instead,
                          which keeps the token out of your shell history.
  --ca FILE.pem           trust this certificate authority, or your server's own self-signed
                          certificate, for this run only (nothing is installed on the machine).
  --spki HASH             Chromium only: accept the server certificate whose key has this base64
                          SHA-256 hash, without a CA file. May be given more than once.
  --resolve PATTERN=IP    connect to IP for a host name or *.name pattern without asking DNS, e.g.
                          --resolve www.example.com=203.0.113.7. May be given more than once.
  --block-other-hosts     reach only the names given with --resolve; everything else fails (keeps a
                          test off the internet).
  --proxy socks5://HOST:PORT
                          send every TCP connection through this SOCKS5 proxy.
  --h3 HOST:PORT          reach this origin over HTTP/3 (QUIC) straight away. May be given more than once.
  --executable PATH       the browser program (default ${DEFAULT_EXECUTABLES.chromium} or ${DEFAULT_EXECUTABLES.firefox}).
  --timeout MS            give a page up to MS milliseconds to load (1000-600000, default 30000).
  --quiet                 no progress bar.
  --help, -h              show this help.

examples:
  pnpm synth https://example.com/
  pnpm synth https://example.com/ --mode warm --runs 10
  pnpm synth https://example.com/ --browser firefox --runs 5 --out firefox.ndjson
  pnpm synth --urls pages.txt --runs 3 --collector http://127.0.0.1:8787
  ${TOKEN_ENV}=tlsrum_rt_... pnpm synth https://www.example.com/ --runs 10 --collector http://127.0.0.1:8787
  pnpm synth https://staging.example.test/ --ca staging.pem --resolve staging.example.test=127.0.0.1

exit codes: 0 every visit worked, 1 some visit failed (the reason is printed), 2 wrong usage,
3 the browser is missing, 4 the collector refused or could not be reached.`;

export class UsageError extends Error {}

/** The options parseArgs accepts: HELP explains each (a test checks it). */
export const OPTIONS = {
  urls: { type: 'string' },
  browser: { type: 'string' },
  mode: { type: 'string' },
  runs: { type: 'string' },
  proxy: { type: 'string' },
  resolve: { type: 'string', multiple: true },
  'block-other-hosts': { type: 'boolean' },
  ca: { type: 'string' },
  spki: { type: 'string', multiple: true },
  h3: { type: 'string', multiple: true },
  executable: { type: 'string' },
  timeout: { type: 'string' },
  collector: { type: 'string' },
  token: { type: 'string' },
  out: { type: 'string' },
  quiet: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export interface SynthArgs {
  options: SyntheticOptions;
  collector: string | null;
  /** The site's read token sent with the records (--token, else the environment's TLSRUM_READ_TOKEN). */
  token: string | null;
  out: string | null;
  quiet: boolean;
}

export function parseSynthArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): SynthArgs | 'help' {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return 'help';
  const urls = [...positionals];
  if (values.urls) {
    let text: string;
    try {
      text = readFileSync(values.urls, 'utf8');
    } catch (err) {
      throw new UsageError(`cannot read --urls ${values.urls}: ${(err as Error).message}`);
    }
    urls.push(
      ...text
        .split('\n')
        .map((l) => l.replace(/#.*/, '').trim())
        .filter(Boolean),
    );
  }
  if (urls.length === 0) throw new UsageError('no URL given');
  const int = (v: string | undefined, name: string) => {
    if (v === undefined) return undefined;
    if (!/^\d+$/.test(v)) throw new UsageError(`${name} must be a whole number, got "${v}"`);
    return Number(v);
  };
  const hostResolver: Record<string, string> = {};
  for (const r of values.resolve ?? []) {
    const [pattern, address] = r.split('=');
    if (!pattern || !address) throw new UsageError(`--resolve takes PATTERN=IP, got "${r}"`);
    hostResolver[pattern] = address;
  }
  if (values.token !== undefined && !values.collector)
    throw new UsageError('--token goes with --collector URL: the token is sent with the records to your collector');
  const token = values.token ?? (values.collector ? env[TOKEN_ENV] || undefined : undefined);
  if (token !== undefined && !/^[\x21-\x7e]{1,512}$/.test(token))
    throw new UsageError(
      `the read token ${values.token !== undefined ? 'given with --token' : `in ${TOKEN_ENV}`} must be one word without spaces (as registration printed it)`,
    );
  if (values.out) {
    try {
      formatOf(values.out);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
  }
  return {
    options: {
      urls,
      browser: values.browser as SyntheticOptions['browser'],
      mode: values.mode as SyntheticOptions['mode'],
      runs: int(values.runs, '--runs'),
      proxy: values.proxy,
      hostResolver,
      blockOtherHosts: values['block-other-hosts'] ?? false,
      caCertPath: values.ca,
      spkiHashes: values.spki,
      h3Origins: values.h3,
      executablePath: values.executable,
      visitTimeoutMs: int(values.timeout, '--timeout'),
    },
    collector: values.collector ?? null,
    token: token ?? null,
    out: values.out ?? null,
    quiet: values.quiet ?? false,
  };
}

export async function main(argv: string[]): Promise<number> {
  let parsed: SynthArgs | 'help';
  try {
    parsed = parseSynthArgs(argv);
  } catch (err) {
    console.error(`synth: ${(err as Error).message}\n${USAGE}\n(pnpm synth --help explains every option)`);
    return EXIT.usage;
  }
  if (parsed === 'help') {
    console.log(HELP);
    return EXIT.ok;
  }
  const bar = progressBar(process.stderr, !parsed.quiet && Boolean(process.stderr.isTTY));
  let result;
  try {
    result = await runSynthetic({
      ...parsed.options,
      onProgress: (done, total, { host, failed }) => bar.update(done, total, `${host}${failed ? ' (failed)' : ''}`),
    });
  } catch (err) {
    bar.done();
    if (err instanceof BrowserMissingError) {
      console.error(`synth: ${err.message}`);
      return EXIT.browserMissing;
    }
    if (err instanceof SynthOptionsError) {
      console.error(`synth: ${err.message}`);
      return EXIT.usage;
    }
    const msg = (err as Error).message ?? String(err);
    if (/Failed to launch|ENOENT|spawn/i.test(msg)) {
      console.error(`synth: the browser did not start: ${msg.split('\n')[0]}`);
      return EXIT.browserMissing;
    }
    throw err;
  }
  bar.done();

  for (const v of result.visits.filter((x) => !x.ok)) {
    console.error(`synth: visit failed: ${v.host} (${v.prime ? 'priming visit' : `run ${v.run + 1}`}): ${v.error}`);
  }
  const measured = result.visits.reduce((n, v) => n + v.counts.new, 0);
  const opaque = result.visits.reduce((n, v) => n + v.counts.opaque, 0);
  console.error(
    `synth: ${result.browser.name} ${result.browser.major}: ${result.visits.length} visits (${result.failedVisits} failed), ` +
      `${result.records.length} records from ${measured} new connections; ${opaque} cross-origin entries without Timing-Allow-Origin not measured`,
  );

  // The summary is the answer, on stdout; where the records went is a note on stderr.
  const mode = parsed.options.mode ?? 'cold';
  console.log(
    `\n${summarize(result.visits)
      .map((s) => formatSummary(s, mode))
      .join('\n\n')}`,
  );

  let code: number = result.failedVisits > 0 ? EXIT.visitsFailed : EXIT.ok;
  if (!parsed.out && !parsed.collector && result.records.length > 0) {
    console.error(
      `synth: the ${result.records.length} records were not kept: add --out FILE.ndjson (or .csv) to save them, or --collector URL to send them to your collector`,
    );
  }
  if (parsed.out) {
    await writeRecords(parsed.out, result.records);
    console.error(`synth: wrote ${result.records.length} records to ${parsed.out}`);
  }
  if (parsed.collector && result.records.length > 0) {
    try {
      const sent = await sendRecords(result.records, {
        collector: parsed.collector,
        agent: AGENT,
        ...(parsed.token ? { token: parsed.token } : {}),
      });
      console.error(
        `synth: collector accepted ${sent.accepted} records in ${sent.batches} batches${
          parsed.token
            ? ' as your own runs: your site\'s view shows them with Source "synthetic" and your read token'
            : ''
        }`,
      );
    } catch (err) {
      if (!(err instanceof CollectorError)) throw err;
      console.error(`synth: ${err.message}`);
      code = EXIT.collector;
    }
  }
  return code;
}

// Run when executed directly (tsx synth/src/cli.ts), not when imported by tests.
if (process.argv[1] && /synth[\\/]src[\\/]cli\.[cm]?[jt]s$/.test(process.argv[1])) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err) => {
      console.error(`synth: ${(err as Error).stack ?? err}`);
      process.exit(EXIT.visitsFailed);
    },
  );
}
