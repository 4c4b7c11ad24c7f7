import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { benchHelp } from '../help';
import { BENCHES } from '../lib/catalogue';
import { appendResult, commitOf, RESULTS_FILE } from '../lib/results';
import { BENCHMARKS_FILE, currentResults, parseResults, renderBenchmarks } from '../report';

const root = join(import.meta.dirname, '..', '..');
const tmp = mkdtempSync(join(tmpdir(), 'tlsrum-bench-report-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('BENCHMARKS.md', () => {
  it('is exactly what `pnpm bench:report` writes from bench/results.jsonl (it cannot drift from the figures)', () => {
    const lines = parseResults(readFileSync(RESULTS_FILE, 'utf8'));
    expect(readFileSync(BENCHMARKS_FILE, 'utf8')).toBe(renderBenchmarks(lines));
  });

  it('shows every bench of the catalogue, with "not measured yet" where no line exists', () => {
    const text = renderBenchmarks([]);
    for (const b of BENCHES) expect(text).toContain(`| ${b.name} | not measured yet |`);
  });

  it('shows the newest line of each bench and variant, with its date, machine and load', () => {
    const line = (date: string, ratio: number, variant?: string) => ({
      bench: 'ingest',
      ratio,
      date,
      machine: 'M, 2 cores',
      load: { start: 1, end: 2 },
      node: 'v22',
      commit: null,
      ...(variant ? { variant } : {}),
    });
    const current = currentResults([
      line('2030-01-02T00:00:00Z', 0.3),
      line('2030-01-01T00:00:00Z', 0.2),
      line('2030-01-01T00:00:00Z', 0.1, 'cap off'),
    ]);
    expect(current.map((r) => [r.variant, r.ratio])).toEqual([
      [undefined, 0.3],
      ['cap off', 0.1],
    ]);
    const text = renderBenchmarks(current);
    expect(text).toContain('| ingest | ratio 0.3,');
    expect(text).toContain('| ingest (cap off) | ratio 0.1,');
    expect(text).toContain('| 2030-01-02 00:00 | M, 2 cores | 1 → 2 |');
  });

  it('refuses a results line that is not JSON, lacks its context or names no known bench', () => {
    expect(() => parseResults('{"bench":"ingest"')).toThrow(/line 1 is not JSON/);
    expect(() => parseResults('{"bench":"ingest","date":"2030-01-01"}')).toThrow(/lacks machine, load, node/);
    expect(() => parseResults('{"bench":"nope","date":"2030-01-01","machine":"m","load":{},"node":"v22"}')).toThrow(
      /no bench named "nope"/,
    );
  });
});

describe('the bench catalogue', () => {
  const scripts = (dir: string) =>
    Object.keys(
      (JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')) as { scripts: Record<string, string> })
        .scripts,
    );
  it('names, for every bench, a file that exists and a command that runs it', () => {
    for (const b of BENCHES) {
      expect(() => readFileSync(join(root, 'bench', b.file)), b.file).not.toThrow();
      // `pnpm bench <name>` runs bench/package.json's script <name> (scripts/run-named.mjs).
      for (const [, name] of b.command.matchAll(/pnpm bench ([\w-]+)/g))
        expect(scripts('bench'), b.command).toContain(name);
      expect(b.command, b.name).toMatch(/pnpm bench [\w-]+/);
    }
  });
  it('describes every bench script of bench/package.json', () => {
    for (const name of scripts('bench'))
      expect(BENCHES.map((b) => b.command).join('\n'), name).toContain(`pnpm bench ${name}`);
  });
  it('is what `pnpm bench <name> --help` prints for every bench script: its command, what it measures, its goal, its settings', () => {
    const words = (text: string) => text.replace(/\s+/g, ' ');
    for (const name of scripts('bench')) {
      const help = words(benchHelp(name));
      const entries = BENCHES.filter((b) => b.file === `${name}.ts`);
      expect(entries.length, name).toBeGreaterThan(0);
      for (const b of entries) {
        expect(help, name).toContain(`usage: ${b.command}`);
        for (const text of [b.measures, b.goal, ...(b.options ?? [])]) expect(help, name).toContain(words(text));
      }
    }
  });
  it('`pnpm bench <name> --help` prints the help and starts nothing; an unknown name is refused', () => {
    const run = (...args: string[]) =>
      spawnSync(process.execPath, [join(root, 'scripts', 'run-named.mjs'), 'bench', ...args], {
        cwd: root,
        encoding: 'utf8',
        timeout: 60_000,
      });
    const help = run('query', '--help');
    expect(help.status).toBe(0);
    expect(help.stdout).toBe(`${benchHelp('query')}\n`);
    const unknown = run('nothing', '--help');
    expect(unknown.status).not.toBe(0);
    expect(unknown.stderr).toContain('pnpm bench: no bench "nothing"');
  });
  it('`pnpm bench:report --help` prints its usage and writes nothing; an unknown argument is refused', () => {
    const run = (...args: string[]) =>
      spawnSync(process.execPath, ['--import', 'tsx', join(root, 'bench', 'report.ts'), ...args], {
        cwd: root,
        encoding: 'utf8',
        timeout: 60_000,
      });
    const before = statSync(join(root, 'BENCHMARKS.md')).mtimeMs;
    const help = run('--help');
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^usage: pnpm bench:report \[--check\]\n/);
    const unknown = run('--chek');
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain('pnpm bench:report: unknown argument --chek');
    expect(statSync(join(root, 'BENCHMARKS.md')).mtimeMs).toBe(before);
  });
});

describe('a bench result', () => {
  it('is appended as one line with its date, machine, load, Node version and commit, which the report reads back', () => {
    const file = join(tmp, 'results.jsonl');
    appendResult({ bench: 'wire-size', bytesPerRecordGzip50: 33.3 }, { BENCH_RESULTS_FILE: file });
    appendResult(
      { bench: 'wire-size', bytesPerRecordGzip50: 30 },
      { BENCH_RESULTS_FILE: file, BENCH_VARIANT: 'level 9' },
    );
    const [plain, variant] = parseResults(readFileSync(file, 'utf8'), file);
    expect(plain).toMatchObject({ bench: 'wire-size', bytesPerRecordGzip50: 33.3, node: process.version });
    expect(plain!.variant).toBeUndefined();
    expect(plain!.machine).toMatch(/, \d+ cores, \d+ GiB$/);
    expect(typeof plain!.load.start).toBe('number');
    expect(Date.parse(plain!.date)).not.toBeNaN();
    expect(variant!.variant).toBe('level 9');
  });

  it("names the commit it measured: this checkout's, or the other checkout's a bench ran on", () => {
    const file = join(tmp, 'commits.jsonl');
    appendResult({ bench: 'wire-size', bytesPerRecordGzip50: 33.3 }, { BENCH_RESULTS_FILE: file });
    appendResult({ bench: 'wire-size', bytesPerRecordGzip50: 33.3, commit: 'f11fbf3' }, { BENCH_RESULTS_FILE: file });
    const [own, other] = parseResults(readFileSync(file, 'utf8'), file);
    expect(own!.commit).toBe(commitOf());
    expect(own!.commit).toMatch(/^[0-9a-f]{7,}$/);
    expect(other!.commit).toBe('f11fbf3');
  });
});
