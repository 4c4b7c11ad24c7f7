/** The rollup-view-cost bench. What it measures, how to run it and its settings: its entry in lib/catalogue.ts (shown in BENCHMARKS.md). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { HandshakeRow } from '@tlsrum/collector/ingest/columns';
import { encodeRowsTsv, TSV_INSERT_QUERY } from '@tlsrum/collector/ingest/encode-rows';
import { toRow } from '@tlsrum/collector/ingest/to-row';
import { openStore } from '@tlsrum/collector/store/clients';
import { loadMigrations, materializedViews, migrate } from '@tlsrum/collector/store/migrate';
import { describeLoad } from './lib/load';
import { makeBenchBatch, rng } from './lib/records';
import { median, printResult, printTable, round } from './lib/report';

const ROUNDS = Number(process.env.BENCH_VIEW_ROUNDS ?? 8);
// Rows per insert: the collector's FLUSH_MAX_ROWS at most (BENCH_VIEW_ROWS).
const ROWS = Number(process.env.BENCH_VIEW_ROWS ?? 10_000);

async function main(): Promise<void> {
  console.log(`rollup view cost: ${ROUNDS} rounds; ${describeLoad()}`);
  const dir = mkdtempSync(join(tmpdir(), 'tlsrum-bench-view-'));
  const store = openStore({ dataDir: dir, clickhouse: null });
  try {
    const migrations = loadMigrations();
    await migrate(store.ingest);
    const statement = (version: number, re: RegExp) =>
      migrations.find((m) => m.version === version)!.statements.find((s) => re.test(s))!;
    const cutsView = materializedViews(migrations.find((m) => m.version === 11)!.statements)[0]!;
    const dayView = materializedViews(migrations.find((m) => m.version === 7)!.statements)[0]!;
    await store.ingest.command({ query: statement(6, /^CREATE TABLE IF NOT EXISTS handshakes_per_day/) });
    const variants: Record<string, { create?: string; drop?: string }> = {
      'no view': {},
      'four cuts (0006/0007)': { create: dayView.statement, drop: `DROP VIEW IF EXISTS ${dayView.name}` },
      'cut table (0011)': { create: cutsView.statement, drop: `DROP VIEW IF EXISTS ${cutsView.name}` },
    };
    await store.ingest.command({ query: `DROP VIEW IF EXISTS ${cutsView.name}` });

    const r = rng(7);
    const now = Date.now() - 3_600_000;
    const base: HandshakeRow[] = [];
    while (base.length < ROWS) {
      const batch = makeBenchBatch(r, 20, now);
      for (const rec of batch.records)
        base.push(toRow(rec, { batch, country: 'DE', receivedAt: now, isRegisteredSite: () => false }));
    }
    const us: Record<string, number[]> = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
    let n = 0;
    for (let i = 0; i < ROUNDS + 1; i++) {
      for (const [name, v] of Object.entries(variants)) {
        if (v.create) await store.ingest.command({ query: v.create });
        const receivedAt = Math.floor(now / 1000) + ++n; // every block differs: identical blocks are deduplicated
        const body = encodeRowsTsv(base.map((x) => ({ ...x, receivedAt })));
        const t0 = performance.now();
        const result = await store.ingest.exec({
          query: TSV_INSERT_QUERY,
          values: Readable.from([Buffer.from(body)], { objectMode: false }),
          clickhouse_settings: { insert_deduplication_token: `view-${n}` },
        });
        for await (const _ of result.stream) void _;
        if (i > 0) us[name]!.push(((performance.now() - t0) * 1000) / base.length);
        if (v.drop) await store.ingest.command({ query: v.drop });
      }
    }
    const none = median(us['no view']!);
    printTable(
      `µs per record, ${ROWS}-row TabSeparated inserts (median of ${ROUNDS}); ${describeLoad()}`,
      Object.entries(us).map(([name, xs]) => ({
        view: name,
        'µs/record': round(median(xs), 2),
        'view share µs/record': round(median(xs) - none, 2),
      })),
    );
    printResult({
      bench: 'rollup-view-cost',
      variant: `${ROWS}-row inserts`,
      rounds: ROUNDS,
      rows: ROWS,
      usPerRecord: Object.fromEntries(Object.entries(us).map(([k, xs]) => [k, round(median(xs), 2)])),
    });
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
