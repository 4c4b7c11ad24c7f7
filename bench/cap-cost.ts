/** The cap-cost bench. What it measures, how to run it and its settings: its entry in lib/catalogue.ts (shown in BENCHMARKS.md). */
import { loadavg } from 'node:os';
import { generateDemoData } from '@tlsrum/collector/demo';
import { openStore } from '@tlsrum/collector/store/clients';
import { migrate, viewsInForce } from '@tlsrum/collector/store/migrate';
import { cappedPerCell, COUNTED, DEFAULT_CLIENT_CAP } from '@tlsrum/collector/query/counted';
import { dimensionSql } from '@tlsrum/collector/query/dimensions';
import { QUERY_SPECS, directSql } from './lib/query-specs';
import { printResult } from './lib/report';

const DIR = process.env.BENCH_CAP_DIR ?? '/tmp/capq';
const ROWS = Number(process.env.BENCH_CAP_ROWS ?? 3_000_000);
const CLIENTS = Number(process.env.BENCH_CAP_CLIENTS ?? 0);
const ROUNDS = Number(process.env.BENCH_CAP_ROUNDS ?? 5);
const RANGES = (process.env.BENCH_CAP_RANGES ?? '30,3').split(',').map(Number);
const ONLY = new RegExp(process.env.BENCH_CAP_VARIANTS ?? '');
const K = DEFAULT_CLIENT_CAP;
const DAY = 86_400_000;
const end = Math.floor(Date.now() / DAY) * DAY;

const store = openStore({ dataDir: DIR, clickhouse: null });

/** The counted rows as countedRows writes them: the subquery's columns and the query's own conditions. */
const COUNTED_LINE = new RegExp(
  `\\(\\n {2}SELECT ([^\\n]*) FROM handshakes\\n {2}WHERE \\(([^\\n]*)\\) AND ${COUNTED}\\n\\)`,
);

type Variant = { name: string; rewrite: (sql: string) => string };

/**
 * The variants of the query `sql` (as counted.ts writes it for whole days), with `keys` the query's cell
 * keys: each rewrites the counted-rows subquery.
 */
function variantsFor(from: number, to: number, keys: string[]): Variant[] {
  const sub = (make: (where: string, cols: string) => string) => (sql: string) => {
    if (!COUNTED_LINE.test(sql)) throw new Error(`no counted rows in:\n${sql}`);
    return sql.replace(COUNTED_LINE, (_m, cols: string, where: string) => make(where, cols));
  };
  return [
    {
      name: 'uncapped',
      rewrite: sub((where, cols) => `(\n  SELECT ${cols} FROM handshakes\n  WHERE (${where}) AND implausible = 0\n)`),
    },
    // The read-time cap, per query cell: as one subquery, and as counted.ts writes it for hourly cells.
    { name: 'exact', rewrite: sub((where, cols) => cappedPerCell(where, keys, K, cols)) },
    { name: 'exact-days', rewrite: sub((where, cols) => cappedPerCell(where, keys, K, cols, { from, to })) },
    // What counted.ts writes for whole days: the rows ingest did not mark.
    { name: 'after', rewrite: (sql: string) => sql },
    ...(process.env.BENCH_CAP_EXTRA
      ? (JSON.parse(process.env.BENCH_CAP_EXTRA) as [string, string][]).map(([name, tpl]) => ({
          name,
          rewrite: sub((where, cols) =>
            tpl
              .replaceAll('$COLS', cols)
              .replaceAll('$WHERE', where)
              .replaceAll('$KEYS', keys.map((k) => `, ${k}`).join('')),
          ),
        }))
      : []),
  ].filter((v) => v.name === 'exact' || ONLY.test(v.name));
}

async function rows(
  sql: string,
  params: Record<string, unknown>,
  settings: Record<string, unknown> = {},
): Promise<Record<string, unknown>[]> {
  const r = await store.query.query({
    query: sql,
    query_params: params,
    format: 'JSONEachRow',
    clickhouse_settings: settings as never,
  });
  return r.json<Record<string, unknown>>();
}

/** Rewrites every row of the table with `select` (a select list over `handshakes`). */
async function rewrite(select: string): Promise<void> {
  await store.ingest.command({ query: 'CREATE TABLE handshakes_rewrite AS handshakes' });
  await store.ingest.command({
    query: `INSERT INTO handshakes_rewrite SELECT ${select} FROM handshakes`,
    clickhouse_settings: { max_threads: 2 },
  });
  await store.ingest.command({ query: 'EXCHANGE TABLES handshakes_rewrite AND handshakes' });
  await store.ingest.command({ query: 'DROP TABLE handshakes_rewrite' });
}

async function generate(): Promise<void> {
  await migrate(store.ingest);
  const live = await rows(
    "SELECT name FROM system.tables WHERE database = currentDatabase() AND engine = 'MaterializedView'",
    {},
  );
  for (const v of viewsInForce().filter((v) => live.some((l) => l.name === v.name))) {
    await store.ingest.command({ query: `DROP VIEW IF EXISTS ${v.name}` });
  }
  const t0 = performance.now();
  await generateDemoData(store.ingest, {
    records: ROWS,
    days: 30,
    end,
    seed: 1,
    chunk: 1_000_000,
    onProgress: (n) => console.log(`${n} rows, ${Math.round((performance.now() - t0) / 1000)} s`),
  });
  // Demo tokens rotate daily and none reaches K in a cell and day: four flooding tokens add 10 identical
  // copies of one record a day each, so the cap removes rows — the same rows whichever copies it keeps
  // (copies of several different records in one cell would make the kept rows depend on read order, which
  // the cap leaves open), which lets the answer check compare variants exactly.
  await store.ingest.command({
    query: `INSERT INTO handshakes SELECT * REPLACE(concat('flood', toString(rep % 4)) AS clientToken)
      FROM (SELECT * FROM handshakes WHERE implausible = 0 LIMIT 1 BY toDate(ts, 'UTC'))
      ARRAY JOIN range(40) AS rep`,
  });
  // Heavy clients: each day's honest records spread over CLIENTS tokens (the flooding ones kept).
  if (CLIENTS > 0)
    await rewrite(
      `* REPLACE(if(clientToken LIKE 'flood%', clientToken, concat('client-', toString(toDate(ts, 'UTC')), '-', toString(cityHash64(clientToken) % ${CLIENTS}))) AS clientToken)`,
    );
  // The marks ingest makes (ingest/client-cap.ts): beyond the first K of a token's UTC day and site.
  await rewrite(
    `* REPLACE(toUInt8(row_number() OVER (PARTITION BY clientToken, toDate(ts, 'UTC'), site ORDER BY ts) > ${K}) AS capped)`,
  );
  await store.ingest.command({ query: 'OPTIMIZE TABLE handshakes FINAL' });
  console.log(`generated ${ROWS} in ${Math.round((performance.now() - t0) / 1000)} s`);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;

async function measure(): Promise<void> {
  const spec = QUERY_SPECS.find((s) => s.name === 'compare')!;
  // A first run on an empty folder generates its store (BENCH_CAP_ROWS) before measuring.
  const has = async (sql: string) => Number((await rows(sql, {}))[0]?.n ?? 0) > 0;
  if (
    !(await has("SELECT count() AS n FROM system.tables WHERE database = currentDatabase() AND name = 'handshakes'")) ||
    !(await has('SELECT count() AS n FROM handshakes'))
  )
    await generate();
  const [stored] = await rows(
    'SELECT count() AS n, uniqExact(clientToken) AS tokens, min(ts) AS lo, max(ts) AS hi FROM handshakes',
    {},
  );
  console.log(`store: ${JSON.stringify(stored)}`);
  const medianMs: Record<string, Record<string, number>> = {};
  for (const days of RANGES) {
    const from = end - days * DAY;
    const { sql, params, readTable } = directSql(spec, 'raw', from, end);
    const keys = spec.cell.dimensions.map((d) => dimensionSql(d, readTable.expressions));
    const VARIANTS = variantsFor(from, end, keys);
    // What each capped variant keeps against `exact` (K per query cell): the rows (their count and an
    // order-free checksum of every column) and the answer cell by cell — counts, clients and mixes exactly,
    // percentiles within 1 % (t-digest results depend on the order parallel threads merge in). `after`
    // caps per fine cell, so it keeps the same rows only where no token holds more than K in a query cell
    // over several fine cells; with heavy clients (BENCH_CAP_CLIENTS) it differs, and says by how much.
    const rowSet = async (q: string) => {
      const sub = q.slice(q.indexOf('FROM (') + 5, q.lastIndexOf('\n)') + 2);
      return JSON.stringify(await rows(`SELECT count() AS n, sum(cityHash64(*)) AS h FROM ${sub}`, params));
    };
    const exact = VARIANTS.find((v) => v.name === 'exact')!.rewrite(sql);
    const refSet = await rowSet(exact);
    const reference = await rows(exact, params);
    for (const v of VARIANTS.filter((x) => x.name !== 'uncapped' && x.name !== 'exact')) {
      const got = await rows(v.rewrite(sql), params);
      const set = await rowSet(v.rewrite(sql));
      const diffs: string[] = [];
      if (got.length !== reference.length) diffs.push(`${got.length} cells vs ${reference.length}`);
      reference.forEach((ref, i) => {
        for (const [k, a] of Object.entries(ref)) {
          const b = got[i]?.[k];
          if (k.startsWith('q_')) {
            (a as number[]).forEach((x, j) => {
              const y = (b as number[])[j]!;
              if (Math.abs(x - y) > Math.max(0.01 * Math.abs(x), 0.05)) diffs.push(`${k}[${j}] ${x} vs ${y}`);
            });
          } else if (JSON.stringify(a) !== JSON.stringify(b))
            diffs.push(`${k} ${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
        }
      });
      console.log(
        `${days} d: ${v.name}: kept rows ${set === refSet ? 'identical' : `DIFFER (${set} vs ${refSet})`} ${refSet}; answer ${diffs.length ? `DIFFERS: ${diffs.slice(0, 5).join('; ')}` : 'identical (percentiles within 1 % or 0.05 ms)'} over ${reference.length} cells`,
      );
    }
    const times: Record<string, number[]> = Object.fromEntries(VARIANTS.map((v) => [v.name, []]));
    const loads: number[] = [];
    for (const v of VARIANTS) await rows(v.rewrite(sql), params); // warm-up
    for (let r = 0; r < ROUNDS; r++) {
      for (const v of VARIANTS) {
        const t0 = performance.now();
        await rows(v.rewrite(sql), params);
        times[v.name]!.push(performance.now() - t0);
        loads.push(loadavg()[0]!);
      }
    }
    const base = median(times.uncapped ?? [NaN]);
    console.log(
      `${days} d, ${ROUNDS} rounds, load 1-min ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}:`,
    );
    medianMs[`${days}d`] = Object.fromEntries(VARIANTS.map((v) => [v.name, Math.round(median(times[v.name]!))]));
    for (const v of VARIANTS) {
      const m = median(times[v.name]!);
      console.log(
        `  ${v.name.padEnd(14)} median ${m.toFixed(0)} ms (min ${Math.min(...times[v.name]!).toFixed(0)}), ×${(m / base).toFixed(3)} uncapped  [${times[v.name]!.map((t) => t.toFixed(0)).join(' ')}]`,
      );
    }
  }
  if (process.env.BENCH_CAP_SHOW) console.log(directSql(spec, 'raw', end - 3 * DAY, end).sql);
  const ratio = (m: Record<string, number>) => Math.round(((m.after ?? NaN) / (m.uncapped ?? NaN)) * 100) / 100;
  printResult({
    bench: 'cap-cost',
    variant: CLIENTS > 0 ? `${CLIENTS} clients a day` : 'demo tokens',
    rows: Number(stored?.n ?? 0),
    rounds: ROUNDS,
    medianMs,
    afterToUncapped: Object.fromEntries(Object.entries(medianMs).map(([range, m]) => [range, ratio(m)])),
  });
}

try {
  await (process.argv[2] === 'generate' ? generate() : measure());
} finally {
  await store.close?.();
}
process.exit(0);
