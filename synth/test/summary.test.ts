/**
 * `pnpm synth`'s per-URL summary, from records the shared classifier built out of known timings: visit
 * counts (a warm run's priming visit apart), TLS version and resumption shares as the records say them,
 * nearest-rank p50/p75 of the TLS handshake and of the connection set-up; and the command line that prints
 * it without --out or --collector and explains every option.
 */
import { describe, expect, it } from 'vitest';
import type { SecurityInfo } from '@tlsrum/shared/classify';
import { buildRecord, type RecordEnv } from '../src/records';
import { HELP, OPTIONS, parseSynthArgs, UsageError } from '../src/cli';
import { formatSummary, percentile, summarize } from '../src/summary';
import type { VisitResult } from '../src/types';

const env: RecordEnv = { browser: 'chromium', browserMajor: 156, os: 'linux', clientToken: 'test-token-1' };

/** A navigation that opened a connection: TCP `tcp` ms then TLS `tls` ms, as Resource Timing shows it. */
function record(tcp: number, tls: number, observed: SecurityInfo | null) {
  const connectStart = 10;
  return buildRecord({
    timing: {
      entryType: 'navigation',
      nextHopProtocol: 'h2',
      startTime: 0,
      fetchStart: 1,
      domainLookupStart: 2,
      domainLookupEnd: 10,
      connectStart,
      secureConnectionStart: connectStart + tcp,
      connectEnd: connectStart + tcp + tls,
      requestStart: connectStart + tcp + tls + 0.5,
      responseStart: connectStart + tcp + tls + 20,
    },
    connectStartEpochMs: Date.UTC(2026, 0, 1),
    site: 'example.test',
    observed,
    env,
  });
}

const tls13 = (resumed: boolean | null): SecurityInfo => ({ evidence: 'observed', tlsVersion: '1.3', resumed });

function visit(url: string, records: ReturnType<typeof record>[], extra: Partial<VisitResult> = {}): VisitResult {
  return {
    url,
    host: new URL(url).hostname,
    browser: 'chromium',
    mode: 'warm',
    run: 0,
    prime: false,
    ok: true,
    startedAt: 0,
    records,
    connections: [],
    counts: { new: records.length, reused: 0, opaque: 0, insecure: 0, invalid: 0 },
    ...extra,
  };
}

describe('per-URL summary', () => {
  it('nearest-rank percentiles: always a measured value', () => {
    expect(percentile([], 0.5)).toBeNull();
    expect(percentile([7], 0.75)).toBe(7);
    expect(percentile([40, 10, 30, 20], 0.5)).toBe(20);
    expect(percentile([40, 10, 30, 20], 0.75)).toBe(30);
    expect(percentile([1, 2, 3, 4, 5], 0.5)).toBe(3);
  });

  it('counts visits, version and resumption shares and p50/p75 from the classified records, priming apart', () => {
    const a = 'https://a.example.test/page';
    const b = 'https://b.example.test/';
    const visits = [
      // The priming visit's full handshake must not lower the resumed share.
      visit(a, [record(20, 30, tls13(false))], { prime: true, run: -1 }),
      visit(a, [record(20, 10, tls13(true)), record(20, 12, tls13(true))]),
      visit(a, [record(20, 14, tls13(true)), record(20, 16, tls13(false))], { run: 1 }),
      visit(a, [], { run: 2, ok: false, error: 'unreachable: ERR_CONNECTION_REFUSED' }),
      visit(b, [record(30, 60, { evidence: 'observed', tlsVersion: '1.2', resumed: false }), record(30, 25, null)]),
    ];
    const [sa, sb] = summarize(visits);
    expect(sa).toEqual({
      url: a,
      visits: 3,
      failed: 1,
      priming: 1,
      connections: 4,
      tlsVersion: { '1.3': 1, '1.2': 0, unknown: 0 },
      resumed: { share: 0.75, known: 4 },
      tls: { p50: 12, p75: 14 },
      connect: { p50: 32, p75: 34 },
    });
    // The record without any security information: its version is not told, its resumption unknown.
    const unknownRecord = visits[4]!.records[1]!;
    expect(unknownRecord.tlsVersion).toBeNull();
    expect(sb).toMatchObject({
      visits: 1,
      connections: 2,
      tlsVersion: { '1.3': 0, '1.2': 0.5, unknown: 0.5 },
      resumed: { share: 0, known: 1 },
      tls: { p50: 25, p75: 60 },
    });
  });

  it('prints the figures in words a site owner reads, and says why a cold run resumes nothing', () => {
    const url = 'https://a.example.test/';
    const [s] = summarize([visit(url, [record(20, 10, tls13(false)), record(20, 30, tls13(false))])]);
    const cold = formatSummary(s!, 'cold');
    expect(cold.split('\n')).toEqual([
      url,
      '  visits               1 (0 failed)',
      '  new connections      2',
      '  TLS version          TLS 1.3 100 %',
      '  resumed              0 % of 2 connections whose resumption is known (cold visits start without a saved session: --mode warm measures returning visitors)',
      '  TLS handshake        p50 10.0 ms, p75 30.0 ms',
      '  connection set-up    p50 30.0 ms, p75 50.0 ms   (TCP + TLS; for HTTP/3 the QUIC handshake)',
    ]);
    expect(formatSummary(s!, 'warm')).not.toContain('cold visits');
  });

  it('a URL that never loaded says so with dashes, not zeros', () => {
    const [s] = summarize([visit('https://down.example.test/', [], { ok: false, error: 'x' })]);
    const text = formatSummary(s!, 'cold');
    expect(text).toContain('visits               1 (1 failed)');
    expect(text).toContain('TLS handshake        p50 —, p75 —');
    expect(text).toContain('resumed              —');
  });
});

describe('pnpm synth: arguments', () => {
  it('runs without --out or --collector (the summary is printed; nothing is kept)', () => {
    const args = parseSynthArgs(['https://a.example.test/']);
    expect(args).toMatchObject({ out: null, collector: null, options: { urls: ['https://a.example.test/'] } });
  });

  it('a bad --out is a usage error naming the allowed endings', () => {
    expect(() => parseSynthArgs(['https://a.example.test/', '--out', 'x.txt'])).toThrow(UsageError);
    expect(() => parseSynthArgs(['https://a.example.test/', '--out', 'x.txt'])).toThrow(/\.ndjson, \.jsonl or \.csv/);
    expect(() => parseSynthArgs(['https://a.example.test/', '--bogus'])).toThrow(UsageError);
  });

  it('--token (or TLSRUM_READ_TOKEN) goes with --collector; the option wins over the environment', () => {
    const base = ['https://www.example.test/', '--collector', 'http://127.0.0.1:8787'];
    expect(parseSynthArgs([...base, '--token', 'tlsrum_rt_abc'], {})).toMatchObject({ token: 'tlsrum_rt_abc' });
    expect(parseSynthArgs(base, { TLSRUM_READ_TOKEN: 'tlsrum_rt_env' })).toMatchObject({ token: 'tlsrum_rt_env' });
    expect(parseSynthArgs([...base, '--token', 'tlsrum_rt_abc'], { TLSRUM_READ_TOKEN: 'tlsrum_rt_env' })).toMatchObject(
      { token: 'tlsrum_rt_abc' },
    );
    expect(parseSynthArgs(base, {})).toMatchObject({ token: null });
    // Without --collector the environment's token is not used, and --token is a usage error.
    expect(parseSynthArgs(['https://www.example.test/'], { TLSRUM_READ_TOKEN: 'x' })).toMatchObject({ token: null });
    expect(() => parseSynthArgs(['https://www.example.test/', '--token', 'x'], {})).toThrow(
      /--token goes with --collector/,
    );
    expect(() => parseSynthArgs([...base, '--token', 'two words'], {})).toThrow(/one word without spaces/);
    expect(HELP).toMatch(
      /your site's read token.*: your runs are\s+then shown to you even though they are one client/s,
    );
  });

  it('--help explains every option it accepts, in words, with examples', () => {
    expect(parseSynthArgs(['--help'])).toBe('help');
    for (const name of Object.keys(OPTIONS)) expect(HELP, name).toMatch(new RegExp(`^ {2}--${name}\\b.*`, 'm'));
    // Each option line is followed by words, on the same line or the next one.
    const lines = HELP.split('\n');
    for (const [i, line] of lines.entries())
      if (/^ {2}--/.test(line)) expect(`${line} ${lines[i + 1] ?? ''}`, line).toMatch(/--\S+(?: \S+)?\s{2,}\w/);
    expect(HELP.match(/^ {2}pnpm synth /gm)?.length).toBeGreaterThanOrEqual(3);
  });
});
