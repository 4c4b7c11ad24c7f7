/**
 * `pnpm synth [URL…] [options]`: the synthetic runner's command line (options in e2e/README.md).
 * Exit codes: 0 all visits succeeded, 1 some visit failed, 2 usage, 3 browser missing, 4 collector.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { CollectorError, sendRecords } from './collector-client';
import { BrowserMissingError, runSynthetic, SynthOptionsError, type SyntheticOptions } from './index';
import { writeRecords, formatOf } from './output';
import { progressBar } from './progress';

export const EXIT = { ok: 0, visitsFailed: 1, usage: 2, browserMissing: 3, collector: 4 } as const;
export const AGENT = { name: 'tlsrum-synth', version: '0.1.0' };

const USAGE = `usage: pnpm synth [URL...] [--urls FILE] [--browser chromium|firefox] [--mode cold|warm] [--runs N]
       [--proxy socks5://HOST:PORT] [--resolve PATTERN=IP]... [--block-other-hosts] [--ca FILE.pem] [--spki HASH]...
       [--h3 HOST:PORT]... [--executable PATH] [--timeout MS] [--collector URL] [--out FILE.ndjson|FILE.csv] [--quiet]`;

class UsageError extends Error {}

function parse(argv: string[]): {
  options: SyntheticOptions;
  collector: string | null;
  out: string | null;
  quiet: boolean;
} {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
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
      out: { type: 'string' },
      quiet: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(EXIT.ok);
  }
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
  if (!values.collector && !values.out)
    throw new UsageError('say where the records go: --collector URL and/or --out FILE');
  if (values.out) formatOf(values.out);
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
    out: values.out ?? null,
    quiet: values.quiet ?? false,
  };
}

export async function main(argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (err) {
    console.error(`synth: ${(err as Error).message}\n${USAGE}`);
    return EXIT.usage;
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

  let code: number = result.failedVisits > 0 ? EXIT.visitsFailed : EXIT.ok;
  if (parsed.out) {
    await writeRecords(parsed.out, result.records);
    console.error(`synth: wrote ${result.records.length} records to ${parsed.out}`);
  }
  if (parsed.collector && result.records.length > 0) {
    try {
      const sent = await sendRecords(result.records, { collector: parsed.collector, agent: AGENT });
      console.error(`synth: collector accepted ${sent.accepted} records in ${sent.batches} batches`);
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
