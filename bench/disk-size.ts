/** The disk-size bench. What it measures, how to run it and its settings: its entry in lib/catalogue.ts (shown in BENCHMARKS.md). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadMigrations, migrate } from '@tlsrum/collector/store/migrate';
import { openStore } from '@tlsrum/collector/store/clients';
import { toRow } from '@tlsrum/collector/ingest/to-row';
import { makeBenchBatch, rng } from './lib/records';
import { machine, printResult, printTable, round } from './lib/report';

const ROWS = Number(process.argv[2] ?? 1_000_000);
const COUNTRIES =
  'US DE GB FR IN BR JP CN RU CA AU ES IT NL SE PL MX KR ID TR AR ZA NG EG KE PK BD VN TH PH MY SG NZ IE CH AT BE NO DK FI'.split(
    ' ',
  );
const DAY = 86_400_000;

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'tlsrum-disk-'));
  const store = openStore({ dataDir: dir, clickhouse: null });
  try {
    await migrate(store.ingest, loadMigrations());
    const r = rng(42);
    const end = Date.now();
    let stored = 0;
    while (stored < ROWS) {
      const rows = [];
      while (rows.length < 10_000 && stored + rows.length < ROWS) {
        const batch = makeBenchBatch(r, 20, end - Math.floor(r() * 30 * DAY));
        const country = COUNTRIES[Math.floor(r() ** 2 * COUNTRIES.length)]!;
        const ctx = { batch, country, receivedAt: batch.sentAt, isRegisteredSite: () => true };
        for (const rec of batch.records) rows.push(toRow(rec, ctx));
      }
      await store.ingest.insert({ table: 'handshakes', values: rows, format: 'JSONEachRow' });
      stored += rows.length;
    }
    // Every table the records fill: the raw table and the rollups its views write (an operator's disk holds all of them).
    const tables = await (
      await store.query.query({
        query: `SELECT DISTINCT table FROM system.parts WHERE active AND database = currentDatabase() AND table LIKE 'handshakes%' ORDER BY table`,
        format: 'JSONEachRow',
      })
    ).json<{ table: string }>();
    for (const { table } of tables) await store.ingest.command({ query: `OPTIMIZE TABLE ${table} FINAL` });
    const sizes = await (
      await store.query.query({
        query: `SELECT table, sum(rows) AS rows, sum(bytes_on_disk) AS disk, sum(data_compressed_bytes) AS compressed,
                       sum(data_uncompressed_bytes) AS uncompressed, count() AS parts
                FROM system.parts WHERE active AND database = currentDatabase() AND table LIKE 'handshakes%'
                GROUP BY table ORDER BY disk DESC`,
        format: 'JSONEachRow',
      })
    ).json<{ table: string; rows: number; disk: number; compressed: number; uncompressed: number; parts: number }>();
    const parts = sizes.find((t) => t.table === 'handshakes');
    const columns = await (
      await store.query.query({
        query: `SELECT name, data_compressed_bytes AS c, data_uncompressed_bytes AS u FROM system.columns
                WHERE database = currentDatabase() AND table = 'handshakes' ORDER BY c DESC LIMIT 8`,
        format: 'JSONEachRow',
      })
    ).json<{ name: string; c: number; u: number }>();
    const rows = Number(parts!.rows);
    const allDisk = sizes.reduce((sum, t) => sum + Number(t.disk), 0);
    printTable(`handshakes on disk after OPTIMIZE FINAL — ${rows} rows, ${parts!.parts} parts (${machine()})`, [
      {
        'bytes/row on disk': round(Number(parts!.disk) / rows, 1),
        'bytes/row compressed': round(Number(parts!.compressed) / rows, 1),
        'bytes/row uncompressed': round(Number(parts!.uncompressed) / rows, 1),
        'compression ratio': round(Number(parts!.uncompressed) / Number(parts!.compressed), 1),
        'GiB per 1e9 rows': round(((Number(parts!.disk) / rows) * 1e9) / 2 ** 30, 1),
      },
    ]);
    printTable(
      'every table, per stored record (a rollup holds a row per combination of its columns per hour or day: its size follows the variety of the traffic more than its volume)',
      sizes.map((t) => ({
        table: t.table,
        rows: Number(t.rows),
        'bytes/record on disk': round(Number(t.disk) / rows, 1),
      })),
    );
    printTable(
      'largest columns of handshakes',
      columns.map((c) => ({
        column: c.name,
        'bytes/row': round(Number(c.c) / rows, 2),
        ratio: round(Number(c.u) / Math.max(1, Number(c.c)), 1),
      })),
    );
    printResult({
      bench: 'disk-size',
      rows,
      bytesPerRowOnDisk: round(Number(parts!.disk) / rows, 2),
      bytesPerRowUncompressed: round(Number(parts!.uncompressed) / rows, 2),
      ratio: round(Number(parts!.uncompressed) / Number(parts!.compressed), 2),
      bytesPerRecordAllTables: round(allDisk / rows, 2),
      tables: Object.fromEntries(sizes.map((t) => [t.table, round(Number(t.disk) / rows, 2)])),
    });
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
