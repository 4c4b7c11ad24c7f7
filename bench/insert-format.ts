/** The insert-format bench. What it measures, how to run it and its settings: its entry in lib/catalogue.ts (shown in BENCHMARKS.md). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { ClickHouseSettings } from '@clickhouse/client';
import { INSERT_COLUMNS, type HandshakeRow } from '@tlsrum/collector/ingest/columns';
import { encodeRowsTsv, TSV_INSERT_QUERY } from '@tlsrum/collector/ingest/encode-rows';
import { toRow } from '@tlsrum/collector/ingest/to-row';
import { openStore } from '@tlsrum/collector/store/clients';
import { migrate } from '@tlsrum/collector/store/migrate';
import { makeBenchBatch, rng } from './lib/records';
import { machine, median, printResult, printTable, round } from './lib/report';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const WARMUP_ROUNDS = 2;
const FLUSH = Number(process.env.BENCH_FLUSH_ROWS ?? 10_000);

interface Variant {
  name: string;
  query: string;
  settings?: ClickHouseSettings;
  encode: (rows: HandshakeRow[]) => string;
}

const jsonEachRow = (rows: HandshakeRow[]) => {
  let s = '';
  for (const r of rows) s += JSON.stringify(r) + '\n';
  return s;
};

const VARIANTS: Variant[] = [
  { name: 'JSONEachRow (today)', query: 'INSERT INTO handshakes FORMAT JSONEachRow', encode: jsonEachRow },
  {
    name: 'JSONEachRow, serial parsing',
    query: 'INSERT INTO handshakes FORMAT JSONEachRow',
    settings: { input_format_parallel_parsing: 0 },
    encode: jsonEachRow,
  },
  {
    name: 'JSONCompactEachRow',
    query: `INSERT INTO handshakes (${INSERT_COLUMNS.join(', ')}) FORMAT JSONCompactEachRow`,
    encode: (rows) => {
      let s = '';
      for (const r of rows) s += JSON.stringify(INSERT_COLUMNS.map((c) => r[c])) + '\n';
      return s;
    },
  },
  { name: 'TabSeparated (encode-rows.ts)', query: TSV_INSERT_QUERY, encode: encodeRowsTsv },
  {
    name: 'TabSeparated, serial parsing',
    query: TSV_INSERT_QUERY,
    settings: { input_format_parallel_parsing: 0 },
    encode: encodeRowsTsv,
  },
];

function makeRows(n: number): HandshakeRow[] {
  const r = rng(11);
  const rows: HandshakeRow[] = [];
  const now = Date.now();
  while (rows.length < n) {
    const batch = makeBenchBatch(r, 20, now);
    const ctx = { batch, country: 'DE', receivedAt: now, isRegisteredSite: (h: string) => h.endsWith('.com') };
    for (const rec of batch.records) rows.push(toRow(rec, ctx));
  }
  return rows.slice(0, n);
}

async function main() {
  console.log(
    `insert-format benchmark: ${FLUSH} rows per insert, ${WARMUP_ROUNDS} + ${ROUNDS} rounds, formats interleaved; ${machine()}`,
  );
  const dataDir = mkdtempSync(join(tmpdir(), 'tlsrum-bench-format-'));
  const store = openStore({ dataDir, clickhouse: null });
  try {
    await migrate(store.ingest);
    const base = makeRows(FLUSH);
    const samples = VARIANTS.map(() => ({ encodeUs: [] as number[], insertUs: [] as number[], bytes: 0 }));
    let inserts = 0;
    for (let round_ = 0; round_ < WARMUP_ROUNDS + ROUNDS; round_++) {
      for (const [vi, v] of VARIANTS.entries()) {
        // Every insert differs (receivedAt): the table deduplicates identical blocks, which would skip the work.
        const receivedAt = base[0]!.receivedAt + ++inserts;
        const rows = base.map((row) => ({ ...row, receivedAt }));
        const t0 = performance.now();
        const body = v.encode(rows);
        const t1 = performance.now();
        const result = await store.ingest.exec({
          query: v.query,
          values: Readable.from([Buffer.from(body)], { objectMode: false }),
          // Settings persist for a chDB session: every insert states the ones that vary.
          clickhouse_settings: {
            input_format_parallel_parsing: 1,
            ...v.settings,
            insert_deduplication_token: `bench-${inserts}`,
          },
        });
        for await (const _ of result.stream) void _;
        const t2 = performance.now();
        if (round_ < WARMUP_ROUNDS) continue;
        samples[vi]!.encodeUs.push(((t1 - t0) * 1000) / FLUSH);
        samples[vi]!.insertUs.push(((t2 - t1) * 1000) / FLUSH);
        samples[vi]!.bytes = Buffer.byteLength(body) / FLUSH;
      }
    }
    const rs = await store.query.query({
      query: 'SELECT count() AS n, uniqExact(receivedAt) AS inserts FROM handshakes',
      format: 'JSONEachRow',
    });
    const { n, inserts: distinct } = (await rs.json<{ n: number; inserts: number }>())[0]!;
    if (Number(n) !== inserts * FLUSH || Number(distinct) !== inserts)
      throw new Error(`stored ${n} rows in ${distinct} inserts, expected ${inserts * FLUSH} in ${inserts}`);

    const figures = VARIANTS.map((v, i) => {
      const s = samples[i]!;
      return { name: v.name, encodeUs: median(s.encodeUs), insertUs: median(s.insertUs), bytes: s.bytes };
    });
    const ref = figures[0]!;
    printTable(
      'per row, medians',
      figures.map((f) => ({
        format: f.name,
        'encode µs': round(f.encodeUs),
        'insert µs': round(f.insertUs),
        'total µs': round(f.encodeUs + f.insertUs),
        'bytes/row': Math.round(f.bytes),
        'insert ratio': round(f.insertUs / ref.insertUs, 3),
        'total ratio': round((f.encodeUs + f.insertUs) / (ref.encodeUs + ref.insertUs), 3),
      })),
    );
    const tsv = figures.find((f) => f.name.startsWith('TabSeparated (encode'))!;
    console.log(
      `\nall ${inserts} inserts stored (${n} rows). TabSeparated / JSONEachRow: insert ${round(tsv.insertUs / ref.insertUs, 3)}, encode ${round(tsv.encodeUs / ref.encodeUs, 3)}`,
    );
    printResult({
      bench: 'insert-format',
      rowsPerInsert: FLUSH,
      rounds: ROUNDS,
      tsvInsertRatio: round(tsv.insertUs / ref.insertUs, 3),
      tsvEncodeRatio: round(tsv.encodeUs / ref.encodeUs, 3),
      tsvTotalRatio: round((tsv.encodeUs + tsv.insertUs) / (ref.encodeUs + ref.insertUs), 3),
      formats: Object.fromEntries(
        figures.map((f) => [
          f.name,
          { encodeUs: round(f.encodeUs), insertUs: round(f.insertUs), bytesPerRow: Math.round(f.bytes) },
        ]),
      ),
    });
  } finally {
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
