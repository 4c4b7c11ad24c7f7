/**
 * What the per-client cap (queries/counted.ts) costs on the raw path, measured directly on the store:
 * the compare stack,mode query the API builds, over the last 30 days and the last 3 days, without the cap
 * with the cap as counted.ts wrote it before 2026-11-24 (`before`), as it writes it now (`after`), and
 * with each other way of writing it given, alternated round by round (A/B/C/A/B/C…), median per variant, with the
 * load average at each run. Also checks that every capped variant answers exactly what the former cap does.
 *
 *   BENCH_CAP_DIR=/tmp/capq BENCH_CAP_ROWS=3000000 pnpm --filter @tlsrum/bench exec tsx cap-cost.ts generate
 *   BENCH_CAP_DIR=/tmp/capq BENCH_CAP_ROUNDS=5 pnpm bench:cap-cost
 *
 * `generate` (also done by a first run on an empty folder) fills the folder with demo records (raw table only: the rollups' views are dropped and not
 * rebuilt, this store serves raw-table queries only), ending at today's UTC midnight, and four flooding
 * tokens over K in every day and cell.
 */
import { loadavg } from 'node:os';
import { generateDemoData } from '../collector/src/demo/generate';
import { openStore } from '../collector/src/store/clients';
import { loadMigrations, materializedViews, migrate } from '../collector/src/store/migrate';
import { DEFAULT_MIN_CLIENTS_PER_CELL } from '../collector/src/config';
import { buildCellSql } from '../collector/src/queries/cells';
import { DEFAULT_CLIENT_CAP, dayBranches } from '../collector/src/queries/counted';
import { QUERY_SPECS, directSql } from './lib/query-specs';

const DIR = process.env.BENCH_CAP_DIR ?? '/tmp/capq';
const ROWS = Number(process.env.BENCH_CAP_ROWS ?? 3_000_000);
const ROUNDS = Number(process.env.BENCH_CAP_ROUNDS ?? 5);
const RANGES = (process.env.BENCH_CAP_RANGES ?? '30,3').split(',').map(Number);
const ONLY = new RegExp(process.env.BENCH_CAP_VARIANTS ?? '');
const DAY = 86_400_000;
const end = Math.floor(Date.now() / DAY) * DAY;

const store = openStore({ dataDir: DIR, clickhouse: null });

/**
 * The capped subquery counted.ts wrote before 2026-11-24 (one subquery, day by toStartOfDay), which each
 * variant rewrites (as a template: $COLS $WHERE $K $KEYS).
 */
const CAP_LINE = /\(\n {2}SELECT ([^\n]*) FROM handshakes\n {2}WHERE ([^\n]*)\n {2}LIMIT (\d+) BY clientToken, toStartOfDay\(ts, 'UTC'\)([^\n]*)\n\)/;
const UNCAPPED = '(\n  SELECT $COLS FROM handshakes\n  WHERE $WHERE\n)';
const BEFORE = "(\n  SELECT $COLS FROM handshakes\n  WHERE $WHERE\n  LIMIT $K BY clientToken, toStartOfDay(ts, 'UTC')$KEYS\n)";
const fill = (sql: string, tpl: string) =>
  sql.replace(CAP_LINE, (_m, cols: string, where: string, k: string, keys: string) => tpl.replaceAll('$COLS', cols).replaceAll('$WHERE', where).replaceAll('$KEYS', keys).replaceAll('$K', k));

type Variant = { name: string; rewrite: (sql: string) => string };
const VARIANTS: Variant[] = [
  { name: 'uncapped', rewrite: (sql) => fill(sql, UNCAPPED) },
  { name: 'before', rewrite: (sql) => fill(sql, BEFORE) },
  ...(process.env.BENCH_CAP_EXTRA ? (JSON.parse(process.env.BENCH_CAP_EXTRA) as [string, string][]).map(([name, tpl]) => ({ name, rewrite: (sql: string) => fill(sql, tpl) })) : []),
  { name: 'before2', rewrite: (sql) => fill(sql, BEFORE) },
];

/** Whole UTC days of [from, to) in `groups` contiguous runs, one UNION ALL branch each (the cap's key holds the day). */
function daySplit(from: number, to: number, groups: number, key = 'clientToken, toDate(ts)'): string {
  const branches = dayBranches(from, to, groups).bounds.map(
    ([lo, hi]) => `  SELECT $COLS FROM handshakes\n  WHERE ($WHERE) AND ts >= fromUnixTimestamp64Milli(toInt64(${lo}), 'UTC') AND ts < fromUnixTimestamp64Milli(toInt64(${hi}), 'UTC')\n  LIMIT $K BY ${key}$KEYS`,
  );
  return `(\n${branches.join('\n  UNION ALL\n')}\n)`;
}

function variantsFor(from: number, to: number, after: string): Variant[] {
  const split = (process.env.BENCH_CAP_SPLITS ?? '').split(',').filter(Boolean).map(Number);
  const days = Math.ceil((to - Math.floor(from / DAY) * DAY) / DAY);
  return [
    ...VARIANTS,
    // What counted.ts writes now.
    { name: 'after', rewrite: () => after },
    ...split.map((g) => ({ name: `days/${g}`, rewrite: (sql: string) => fill(sql, daySplit(from, to, g)) })),
    // One branch per UTC day: the day is then the same for every row of a branch, and leaves the key.
    ...(process.env.BENCH_CAP_PERDAY ? [{ name: 'perday-nokey', rewrite: (sql: string) => fill(sql, daySplit(from, to, days, 'clientToken')) }] : []),
  ].filter((v) => ONLY.test(v.name));
}
async function rows(sql: string, params: Record<string, unknown>, settings: Record<string, unknown> = {}): Promise<Record<string, unknown>[]> {
  const r = await store.query.query({ query: sql, query_params: params, format: 'JSONEachRow', clickhouse_settings: settings as never });
  return r.json<Record<string, unknown>>();
}

async function generate(): Promise<void> {
  await migrate(store.ingest);
  const live = await rows("SELECT name FROM system.tables WHERE database = currentDatabase() AND engine = 'MaterializedView'", {});
  for (const v of materializedViews(loadMigrations().flatMap((m) => m.statements)).filter((v) => live.some((l) => l.name === v.name))) {
    await store.ingest.command({ query: `DROP VIEW IF EXISTS ${v.name}` });
  }
  const t0 = performance.now();
  await generateDemoData(store.ingest, { records: ROWS, days: 30, end, seed: 1, chunk: 1_000_000, onProgress: (n) => console.log(`${n} rows, ${Math.round((performance.now() - t0) / 1000)} s`) });
  // Demo tokens rotate daily and none reaches K in a cell and day: four flooding tokens add 10 identical
  // copies of one record a day each, so the cap removes rows — the same rows whichever copies it keeps
  // (copies of several different records in one cell would make the kept rows depend on read order, which
  // the cap leaves open), which lets the answer check compare variants exactly.
  await store.ingest.command({
    query: `INSERT INTO handshakes SELECT * REPLACE(concat('flood', toString(rep % 4)) AS clientToken)
      FROM (SELECT * FROM handshakes WHERE implausible = 0 LIMIT 1 BY toDate(ts, 'UTC'))
      ARRAY JOIN range(40) AS rep`,
  });
  await store.ingest.command({ query: 'OPTIMIZE TABLE handshakes FINAL' });
  console.log(`generated ${ROWS} in ${Math.round((performance.now() - t0) / 1000)} s`);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;

async function measure(): Promise<void> {
  const spec = QUERY_SPECS.find((s) => s.name === 'compare')!;
  // A first run on an empty folder generates its store (BENCH_CAP_ROWS) before measuring.
  const has = async (sql: string) => Number((await rows(sql, {}))[0]?.n ?? 0) > 0;
  if (!(await has("SELECT count() AS n FROM system.tables WHERE database = currentDatabase() AND name = 'handshakes'")) || !(await has('SELECT count() AS n FROM handshakes'))) await generate();
  console.log(`store: ${JSON.stringify(await rows('SELECT count() AS n, uniqExact(clientToken) AS tokens, min(ts) AS lo, max(ts) AS hi FROM handshakes', {}))}`);
  for (const days of RANGES) {
    const from = end - days * DAY;
    const { sql: after, params } = directSql(spec, 'raw', from, end);
    const cell = { ...spec.cell, table: 'raw' as const };
    const uncapped = buildCellSql({ ...cell, filters: { from, to: end, site: null, clientCap: 0 } }, DEFAULT_MIN_CLIENTS_PER_CELL).sql;
    // The cell keys as counted.ts writes them now (after the token and, in branches of several days, the day).
    const keys = /LIMIT \d+ BY clientToken(?:, toDate\(ts, 'UTC'\))?([^\n]*)/.exec(after)![1]!;
    const sql = uncapped.replace(/\(\n {2}SELECT ([^\n]*) FROM handshakes\n {2}WHERE ([^\n]*)\n\)/, (_m, cols: string, where: string) => `(\n  SELECT ${cols} FROM handshakes\n  WHERE ${where}\n  LIMIT ${DEFAULT_CLIENT_CAP} BY clientToken, toStartOfDay(ts, 'UTC')${keys}\n)`);
    if (!CAP_LINE.test(sql)) throw new Error(`no cap line in:\n${sql}`);
    const VARIANTS = variantsFor(from, end, after);
    // Same answers as the former cap: the rows each capped variant keeps (their count and an
    // order-free checksum of every column), and the answer cell by cell — counts, clients and mixes exactly,
    // percentiles within 1 % (t-digest results depend on the order parallel threads merge in: the former
    // cap run twice differs there too, see before2).
    const rowSet = async (q: string) => {
      const sub = q.slice(q.indexOf('FROM (') + 5, q.lastIndexOf('\n)') + 2);
      return JSON.stringify(await rows(`SELECT count() AS n, sum(cityHash64(*)) AS h FROM ${sub}`, params));
    };
    const refSet = await rowSet(fill(sql, BEFORE));
    const reference = await rows(fill(sql, BEFORE), params);
    for (const v of VARIANTS.filter((x) => x.name !== 'uncapped' && x.name !== 'before')) {
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
          } else if (JSON.stringify(a) !== JSON.stringify(b)) diffs.push(`${k} ${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
        }
      });
      console.log(`${days} d: ${v.name}: kept rows ${set === refSet ? 'identical' : `DIFFER (${set} vs ${refSet})`} ${refSet}; answer ${diffs.length ? `DIFFERS: ${diffs.slice(0, 5).join('; ')}` : 'identical (percentiles within 1 % or 0.05 ms)'} over ${reference.length} cells`);
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
    console.log(`${days} d, ${ROUNDS} rounds, load 1-min ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}:`);
    for (const v of VARIANTS) {
      const m = median(times[v.name]!);
      console.log(`  ${v.name.padEnd(14)} median ${m.toFixed(0)} ms (min ${Math.min(...times[v.name]!).toFixed(0)}), ×${(m / base).toFixed(3)} uncapped  [${times[v.name]!.map((t) => t.toFixed(0)).join(' ')}]`);
    }
  }
  if (process.env.BENCH_CAP_SHOW) console.log(directSql(spec, 'raw', end - 3 * DAY, end).sql);
}

try {
  await (process.argv[2] === 'generate' ? generate() : measure());
} finally {
  await store.close?.();
}
process.exit(0);
