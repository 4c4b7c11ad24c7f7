/**
 * The monthly open dataset on the real embedded store (src/datasets/): both files hold the declared columns
 * and the same rows; rows respect the threshold and count only plausible, uncapped, real-user records of
 * the month; the store's rows are the suppression rule's (the rule's own property test is
 * datasets-plan.test.ts); the same month exports to identical bytes; and bad input is refused with a clear
 * message, leaving nothing behind.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli';
import { loadConfig } from '../../src/platform/config';
import { DATASET_COLUMNS, KEY_COLUMNS } from '../../src/datasets/columns';
import { DatasetError, exportMonth, fileNames, type ExportOptions } from '../../src/datasets/export';
import { parseMonth, type MonthRange } from '../../src/datasets/month';
import { countInMemory, groupKey, levelOf, planRows, type PlanRecord } from '../../src/datasets/plan';
import type { HandshakeRow } from '../../src/ingest/columns';
import { migrate } from '../../src/platform/store/migrate';
import { generate, insertRows } from '../support/generate';
import { openStore, removeDir, tempDir } from '../support/helpers';
import type { Store } from '../../src/platform/store/clients';

const HOUR = 3_600_000;
/** Two months back: over, and well within retention. */
function monthsAgo(n: number): MonthRange {
  const d = new Date();
  const m = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - n, 1));
  return parseMonth(`${m.getUTCFullYear()}-${String(m.getUTCMonth() + 1).padStart(2, '0')}`);
}
const MONTH = monthsAgo(2);
const EMPTY_MONTH = monthsAgo(4);
const THRESHOLD = 5;
const GROUPS = { hybrid: 'X25519MLKEM768', classical: 'X25519', unknown: '' } as const;

/** `records` rows of one cell of MONTH (or `range`), from `clients` distinct tokens, TLS 1.3 full over h2. */
function cell(o: {
  seed: number;
  records: number;
  clients: number;
  browser: string;
  kx: keyof typeof GROUPS;
  country?: string;
  range?: MonthRange;
  patch?: Partial<HandshakeRow>;
}): HandshakeRow[] {
  const range = o.range ?? MONTH;
  return generate({
    site: 'a.example',
    country: o.country ?? 'DE',
    from: range.from + HOUR,
    to: range.to - HOUR,
    records: o.records,
    clients: o.clients,
    rtt: 40,
    fullTls: 80,
    resumedTls: 40,
    resumedShare: 0,
    tls13Share: 1,
    h3Share: 0,
    seed: o.seed,
  }).map((r) => ({ ...r, browser: o.browser, keyExchangeGroup: GROUPS[o.kx], ...o.patch }) as HandshakeRow);
}

interface CsvRow {
  [column: string]: string | number | number[];
}

let store: Store;
const dataDir = tempDir('tlsrum-datasets-');
const outRoot = tempDir('tlsrum-datasets-out-');
const options = (month: string, outDir: string): ExportOptions => ({
  month,
  outDir,
  minClients: THRESHOLD,
  retentionDays: 395,
  clientCap: 5,
});

/** The rows of an exported file, read back by the store itself (Parquet, or the CSV with the declared types). */
async function readBack(path: string, format: 'Parquet' | 'CSVWithNames'): Promise<CsvRow[]> {
  const structure = DATASET_COLUMNS.map((c) => `${c.name} ${c.type}`).join(', ');
  const source =
    format === 'Parquet' ? `file({path:String}, Parquet)` : `file({path:String}, CSVWithNames, {structure:String})`;
  const rs = await store.query.query({
    query: `SELECT * FROM ${source}`,
    query_params: { path, structure },
    format: 'JSONEachRow',
  });
  return rs.json<CsvRow>();
}

beforeAll(async () => {
  store = openStore({ dataDir, clickhouse: null });
  await migrate(store.ingest);
  await insertRows(store.ingest, [
    ...cell({ seed: 1, records: 12, clients: 6, browser: 'chrome', kx: 'hybrid' }), // a row of its own
    ...cell({ seed: 2, records: 3, clients: 3, browser: 'firefox', kx: 'hybrid' }), // with edge's: browser *
    ...cell({ seed: 3, records: 6, clients: 3, browser: 'edge', kx: 'hybrid' }),
    ...cell({ seed: 4, records: 3, clients: 3, browser: 'firefox', kx: 'classical' }), // with firefox unknown: key exchange *
    ...cell({ seed: 5, records: 4, clients: 2, browser: 'firefox', kx: 'unknown' }),
    ...cell({ seed: 6, records: 2, clients: 1, browser: 'edge', kx: 'classical' }), // in no row
    ...cell({ seed: 7, records: 5, clients: 5, browser: 'chrome', kx: 'hybrid', country: 'FR' }), // exactly the threshold
    // Records that would lift the small edge classical cell over the threshold if they counted:
    ...cell({ seed: 8, records: 10, clients: 10, browser: 'edge', kx: 'classical', patch: { implausible: 1 } }),
    ...cell({ seed: 9, records: 10, clients: 10, browser: 'edge', kx: 'classical', patch: { capped: 1 } }),
    ...cell({ seed: 10, records: 10, clients: 10, browser: 'edge', kx: 'classical', patch: { source: 'synthetic' } }),
    // ... and the month before holds a big cell of its own.
    ...cell({ seed: 11, records: 10, clients: 10, browser: 'edge', kx: 'classical', range: monthsAgo(3) }),
  ]);
}, 60_000);

afterAll(async () => {
  await store?.close();
  removeDir(dataDir);
  removeDir(outRoot);
});

describe('the monthly dataset, exported from the store', () => {
  const dir = join(outRoot, 'first');
  let csv: CsvRow[];

  it('writes the Parquet file, the CSV and the README, and nothing else', async () => {
    const done = await exportMonth(store.query, options(MONTH.month, dir));
    expect(readdirSync(dir).sort()).toEqual([
      'README.md',
      `tlsrum-${MONTH.month}.csv`,
      `tlsrum-${MONTH.month}.parquet`,
    ]);
    expect(done.rows).toBe(4);
    expect(readFileSync(join(dir, 'README.md'), 'utf8')).toContain(done.sha256.parquet);
  });

  it('both files have exactly the declared columns, types and the same rows in the same order', async () => {
    const described = await (
      await store.query.query({
        query: 'DESCRIBE file({path:String}, Parquet)',
        query_params: { path: join(dir, fileNames(MONTH.month).parquet) },
        format: 'JSONEachRow',
      })
    ).json<{ name: string; type: string }>();
    expect(described.map((d) => [d.name, d.type])).toEqual(DATASET_COLUMNS.map((c) => [c.name, c.type]));
    const header = readFileSync(join(dir, fileNames(MONTH.month).csv), 'utf8').split('\n')[0];
    expect(header).toBe(DATASET_COLUMNS.map((c) => `"${c.name}"`).join(','));
    const parquet = await readBack(join(dir, fileNames(MONTH.month).parquet), 'Parquet');
    csv = await readBack(join(dir, fileNames(MONTH.month).csv), 'CSVWithNames');
    expect(csv).toEqual(parquet);
    const keys = csv.map((r) => KEY_COLUMNS.map((c) => String(r[c.name])).join('\u0000'));
    expect(keys).toEqual([...keys].sort());
  });

  it('rows hold at least the threshold of clients, merge only suppressed cells, and count only plausible, uncapped, real-user records of the month', () => {
    const brief = csv.map((r) => [r.country, r.browser, r.key_exchange, r.clients, r.records]);
    expect(brief).toEqual([
      ['DE', '*', 'hybrid', 6, 9], // firefox + edge, both small; chrome has its own row
      ['DE', 'chrome', 'hybrid', 6, 12],
      ['DE', 'firefox', '*', 5, 7], // classical + unknown
      ['FR', 'chrome', 'hybrid', 5, 5],
    ]);
    for (const r of csv) {
      expect(r.month).toBe(MONTH.month);
      expect([r.protocol, r.tls_version, r.handshake_mode]).toEqual(['h2', '1.3', 'full']);
      const histogram = r.tls_histogram as number[];
      expect(histogram).toHaveLength(274);
      expect(histogram.reduce((a, b) => a + b, 0)).toBe(r.records);
      expect(Number(r.tls_p50_ms)).toBeLessThanOrEqual(Number(r.tls_p75_ms));
      expect(Number(r.tls_p75_ms)).toBeLessThanOrEqual(Number(r.tls_p95_ms));
      expect(Number(r.tls_p50_ms)).toBeGreaterThan(50);
    }
  });

  it('exporting the same month again gives byte-identical files', async () => {
    const again = join(outRoot, 'again');
    await exportMonth(store.query, options(MONTH.month, again));
    for (const name of Object.values(fileNames(MONTH.month)))
      expect(readFileSync(join(again, name)).equals(readFileSync(join(dir, name))), name).toBe(true);
  });

  it('re-exports into a folder holding only its own files (and an earlier export’s leftovers)', async () => {
    writeFileSync(join(dir, `.tlsrum-${MONTH.month}.csv.partial`), 'left over');
    await exportMonth(store.query, options(MONTH.month, dir));
    expect(readdirSync(dir).sort()).toEqual([
      'README.md',
      `tlsrum-${MONTH.month}.csv`,
      `tlsrum-${MONTH.month}.parquet`,
    ]);
  });
});

describe('bad input: a clear message, nothing written', () => {
  const refuses = async (month: string, outDir: string, message: RegExp) => {
    const before = existsSync(outDir) ? readdirSync(outDir).sort() : null;
    await expect(exportMonth(store.query, options(month, outDir))).rejects.toThrow(message);
    await expect(exportMonth(store.query, options(month, outDir))).rejects.toBeInstanceOf(DatasetError);
    expect(existsSync(outDir) ? readdirSync(outDir).sort() : null).toEqual(before);
  };

  it('a malformed month', async () => {
    for (const m of ['2026-13', '2026-1', '26-10', '2026-10-01', '2026_10', ''])
      await refuses(m, join(outRoot, 'bad'), /is not a month: write it as YYYY-MM/);
  });

  it('a month not over (records of its last day still arrive for 24 h)', async () => {
    const now = new Date();
    const current = `${now.getUTCFullYear()}-${String(now.getUTCMonth() + 1).padStart(2, '0')}`;
    await refuses(current, join(outRoot, 'bad'), /is not over: records of it are taken until/);
    const m = parseMonth(MONTH.month);
    await expect(
      exportMonth(store.query, { ...options(MONTH.month, join(outRoot, 'bad')), now: m.to + 23 * HOUR }),
    ).rejects.toThrow(/is not over/);
  });

  it('an out folder that holds other files', async () => {
    const busy = join(outRoot, 'busy');
    mkdirSync(busy);
    writeFileSync(join(busy, 'notes.txt'), 'mine');
    await refuses(MONTH.month, busy, /already holds other files \(notes\.txt\)/);
    expect(readFileSync(join(busy, 'notes.txt'), 'utf8')).toBe('mine');
  });

  it('a month without records', async () => {
    await refuses(EMPTY_MONTH.month, join(outRoot, 'empty'), /no records of .* in the store/);
  });

  it('a month whose rows are all under the threshold', async () => {
    await expect(
      exportMonth(store.query, { ...options(MONTH.month, join(outRoot, 'high')), minClients: 1000 }),
    ).rejects.toThrow(/no row of .* reaches DATASET_MIN_CLIENTS = 1000/);
    expect(existsSync(join(outRoot, 'high'))).toBe(false);
  });
});

describe('the store applies the suppression rule exactly as specified', () => {
  /** Small key domains so cells merge; the records of one month. */
  const recordArb = fc.record({
    country: fc.constantFrom('DE', 'FR'),
    browser: fc.constantFrom('chrome', 'firefox', 'edge'),
    protocol: fc.constantFrom('h2', 'h3'),
    tlsVersion: fc.constantFrom('1.3', '1.2'),
    mode: fc.constantFrom('full', 'resumed'),
    keyExchange: fc.constantFrom('hybrid', 'classical', 'unknown'),
    client: fc.integer({ min: 0, max: 25 }).map((i) => `client-token-${i}`),
  });
  const clusterArb = fc
    .tuple(recordArb, fc.integer({ min: 1, max: 8 }))
    .map(([r, n]) => Array.from({ length: n }, (_, i) => ({ ...r, client: `${r.client}-${i}` })));

  it('the exported rows are the rule’s rows, with their clients and records (random data)', async () => {
    const template = cell({ seed: 99, records: 1, clients: 1, browser: 'chrome', kx: 'hybrid' })[0]!;
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            recordArb.map((r) => [r]),
            clusterArb,
          ),
          { minLength: 1, maxLength: 25 },
        ),
        fc.integer({ min: 2, max: 4 }),
        async (groups, threshold) => {
          const records: PlanRecord[] = groups.flat();
          await store.ingest.command({ query: 'TRUNCATE TABLE handshakes' });
          await insertRows(
            store.ingest,
            records.map((r, i) => ({
              ...template,
              ts: MONTH.from + HOUR + i * 1000,
              country: r.country,
              browser: r.browser,
              protocol: r.protocol,
              tlsVersion: r.tlsVersion,
              resumed: r.mode === 'resumed',
              keyExchangeGroup: GROUPS[r.keyExchange as keyof typeof GROUPS],
              clientToken: r.client,
            })) as HandshakeRow[],
          );
          const published = await planRows(countInMemory(records), threshold);
          const expected = new Map<string, { clients: Set<string>; records: number }>();
          for (const r of records) {
            const level = levelOf(r, published);
            if (level === null) continue;
            const k = groupKey(r, level);
            const e = expected.get(k) ?? { clients: new Set<string>(), records: 0 };
            e.clients.add(r.client);
            e.records++;
            expected.set(k, e);
          }
          const outDir = join(outRoot, `run-${run++}`);
          if (expected.size === 0) {
            await expect(
              exportMonth(store.query, { ...options(MONTH.month, outDir), minClients: threshold }),
            ).rejects.toThrow(/no row of/);
            return;
          }
          await exportMonth(store.query, { ...options(MONTH.month, outDir), minClients: threshold });
          const rows = await readBack(join(outDir, fileNames(MONTH.month).csv), 'CSVWithNames');
          const got = Object.fromEntries(
            rows.map((r) => [
              [r.country, r.browser, r.protocol, r.tls_version, r.handshake_mode, r.key_exchange].join('|'),
              [Number(r.clients), Number(r.records)],
            ]),
          );
          expect(got).toEqual(Object.fromEntries([...expected].map(([k, e]) => [k, [e.clients.size, e.records]])));
        },
      ),
      { numRuns: 8 },
    );
  }, 120_000);
});

describe('pnpm collector dataset', () => {
  it('DATASET_MIN_CLIENTS may not be below the live API’s threshold', () => {
    expect(() => loadConfig({ DATASET_MIN_CLIENTS: '10', MIN_CLIENTS_PER_CELL: '20' })).toThrow(
      'DATASET_MIN_CLIENTS must be at least MIN_CLIENTS_PER_CELL',
    );
    expect(loadConfig({}).datasets.minClients).toBe(100);
  });

  it('without --month or --out prints its usage and exits 2', async () => {
    let text = '';
    expect(await main(['dataset', '--month', '2026-10'], { DATA_DIR: dataDir }, (s) => (text += s))).toBe(2);
    expect(text).toContain('usage: pnpm collector dataset --month YYYY-MM --out DIR');
  });

  it('refuses a malformed month before opening the store', async () => {
    await expect(
      main(['dataset', '--month', '2026-13', '--out', join(outRoot, 'cli')], { DATA_DIR: dataDir }),
    ).rejects.toThrow(/not a month/);
  });

  it('as a process: a clear message on stderr and exit code 1', () => {
    const cli = fileURLToPath(new URL('../../src/cli.ts', import.meta.url));
    const r = spawnSync(
      process.execPath,
      ['--import', 'tsx', cli, 'dataset', '--month', '2026-13', '--out', join(outRoot, 'cli')],
      {
        env: { ...process.env, DATA_DIR: join(outRoot, 'no-store') },
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    expect(r.status).toBe(1);
    expect(r.stderr.trim()).toBe('"2026-13" is not a month: write it as YYYY-MM, e.g. 2026-10');
    expect(existsSync(join(outRoot, 'cli'))).toBe(false);
  });
});
