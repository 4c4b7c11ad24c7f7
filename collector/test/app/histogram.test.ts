/**
 * The daily rollup's percentiles come from fixed log-scale buckets (src/query/histogram.ts). On the real
 * store, every percentile of every phase the rollup answers is within the stated bound of quantileExact
 * over the same rows — for generated data and for adversarial values (zeros, bucket edges, the maximum,
 * a log-uniform spread, two far-apart modes), from the daily cuts and from the hourly grain's sparse
 * buckets alike; a group of any count gets quantileExact's rank, not the one next to it; and the migrations
 * build exactly the buckets the queries read.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_PHASE_MS } from '@tlsrum/shared';
import { generateDemoData } from '../../src/demo/generate';
import { SITES } from '../../src/demo/profiles';
import { buildCellSql } from '../../src/query/cells';
import { dimensionSql, type Dimension } from '../../src/query/dimensions';
import {
  BUCKET_GROWTH,
  BUCKET_LOW_MS,
  BUCKET_STATE_TYPE,
  BUCKETS,
  bucketIndexSql,
  bucketPercentilesSql,
  bucketStateSql,
  MAX_EXACT_RANK_RECORDS,
  MAX_RELATIVE_ERROR,
  rankLevels,
  sortedBucketStateSql,
  withSortedBuckets,
} from '../../src/query/histogram';
import { ALL_PHASES, PERCENTILES } from '../../src/query/percentiles';
import { openStore, type Store } from '../../src/platform/store/clients';
import { migrate, rollupViewsInForce } from '../../src/platform/store/migrate';
import { freshStoreDir, keptPhases, removeDir } from '../support/helpers';

const DAY = 86_400_000;
const HOUR = 3_600_000;
const DAYS = 8;
const end = Math.floor(Date.now() / DAY) * DAY;
const from = end - DAYS * DAY;

describe('bucket layout', () => {
  it("every rollup's view stores, per phase, the buckets the queries read, as sparse counts", () => {
    const views = rollupViewsInForce();
    const withHistograms = views.filter((v) => v.select.includes('_hist'));
    // Every rollup: the daily cuts and crypto rollup (converted by 0025) and every cut added since 0013.
    expect(withHistograms.map((v) => v.target)).toEqual(
      expect.arrayContaining(['handshakes_cuts', 'handshakes_crypto_per_day', 'handshakes_per_hour']),
    );
    expect(withHistograms).toHaveLength(views.length);
    for (const v of withHistograms) {
      const sql = v.select.replace(/\s+/g, ' ');
      expect(sql, v.name).not.toContain('countResample');
      for (const p of keptPhases(v.target)) expect(sql, v.name).toContain(`${bucketStateSql(p)} AS ${p}_hist`);
    }
  });

  it('covers every valid phase value below the last bucket, and states the error of its width', () => {
    expect(1 + Math.floor(Math.log(MAX_PHASE_MS / BUCKET_LOW_MS) / Math.log(BUCKET_GROWTH))).toBeLessThanOrEqual(
      BUCKETS - 1,
    );
    expect(MAX_RELATIVE_ERROR).toBeLessThan(0.025);
  });

  it("gives quantilesExactWeighted levels that pick quantileExact's rank at every count up to the stated limit", () => {
    const levels = PERCENTILES.split(',').map(Number);
    // The limit's reasoning holds for levels that are multiples of 1/20.
    for (const l of levels) expect(Number.isInteger(Math.round(l * 20 * 1e9) / 1e9), String(l)).toBe(true);
    const nudged = rankLevels();
    // quantilesExactWeighted's threshold ⌈level · n⌉ (a count reaching it) against quantileExact's 0-based rank
    // ⌊level · n⌋, in the same IEEE doubles the store computes them in.
    const agrees = (i: number, n: number) => Math.ceil(nudged[i]! * n) === Math.floor(levels[i]! * n) + 1;
    let seed = 7;
    const next = () => (seed = (seed * 48_271) % 2_147_483_647) / 2_147_483_647;
    for (let i = 0; i < levels.length; i++) {
      for (let n = 1; n <= 200_000; n++) if (!agrees(i, n)) expect.fail(`level ${levels[i]}, ${n} records`);
      for (let k = 0; k < 200_000; k++) {
        const n = 1 + Math.floor(next() * MAX_EXACT_RANK_RECORDS);
        // Every twentieth count makes level · n whole: the case the nudge is for.
        for (const m of [n, n - (n % 20) || 20]) if (!agrees(i, m)) expect.fail(`level ${levels[i]}, ${m} records`);
      }
    }
  });
});

// Five countries of their own, 2 000 rows each, over the same days as the generated data; each phase of a
// row takes a different value (salted by the phase) so that all five columns are exercised.
const ADVERSARIAL = (phase: number) => `multiIf(
  g = 0, [0, 0.05, 0.0999, 0.1, 0.1001][k % 5 + 1],
  g = 1, toFloat32(0.1 * pow(1.05, (k + ${phase * 17}) % 273)),
  g = 2, toFloat32(0.1 * exp(log(600000) * (cityHash64(k, ${phase}) % 1000003) / 1000003.0)),
  g = 3, toFloat32(if(k % 3 = 0, 60000, 60000 - (k % 100) * 7.3)),
  toFloat32(if(k % 2 = 0, 1, 5000)))`;
const INSERT_ADVERSARIAL = `
INSERT INTO handshakes (ts, site, country, protocol, tlsVersion, resumed, resumedSource, handshakeClass, clientToken, ${ALL_PHASES.join(', ')})
SELECT fromUnixTimestamp64Milli(toInt64({from:Int64} + (number * 7919) % {span:Int64})), {site:String}, ['XA', 'XB', 'XC', 'XD', 'XE'][g + 1],
       'h2', '1.3', false, 'observed', '1rtt', concat('adv-client-', toString(number % 300)),
       ${ALL_PHASES.map((_, i) => ADVERSARIAL(i)).join(',\n       ')}
FROM (SELECT number, number % 5 AS g, intDiv(number, 5) AS k FROM numbers(10000))`;

let store: Store;
let dir: string;

beforeAll(async () => {
  dir = freshStoreDir();
  store = openStore({ dataDir: dir, clickhouse: null });
  await migrate(store.ingest);
  await generateDemoData(store.ingest, { records: 30_000, days: DAYS, end, seed: 11 });
  await store.ingest.command({
    query: INSERT_ADVERSARIAL,
    query_params: { from, span: DAYS * DAY, site: SITES[0]!.hostname },
  });
  // The rollups' views fill as the rows land: minutes on a loaded 2-core machine.
}, 180_000);
afterAll(async () => {
  await store.close();
  removeDir(dir);
});

type Row = Record<string, unknown>;
const rows = async (query: string, params: Record<string, string | number>) =>
  (await store.query.query({ query, query_params: params, format: 'JSONEachRow' })).json<Row>();

describe('bucket percentiles on the real store', () => {
  it('every rollup keeps each phase as a sparse bucket map, and no table a dense one', async () => {
    const columns = await rows(
      `SELECT table, name, type FROM system.columns WHERE database = currentDatabase()
         AND (name LIKE '%\\_hist' OR name LIKE '%\\_buckets')
         AND table IN (SELECT name FROM system.tables WHERE database = currentDatabase() AND engine LIKE '%MergeTree')
       ORDER BY table, position`,
      {},
    );
    const targets = new Set(rollupViewsInForce().map((v) => v.target));
    expect(new Set(columns.map((c) => c.table))).toEqual(targets);
    for (const c of columns) expect(c.type, `${c.table}.${c.name}`).toBe(BUCKET_STATE_TYPE);
    for (const t of targets)
      expect(
        columns.filter((c) => c.table === t).map((c) => c.name),
        t,
      ).toEqual(keptPhases(t).map((p) => `${p}_hist`));
  });

  // A rollup filled from the stored records (migrate.ts, backfill) counts each group's sorted bucket indices;
  // its view, at insert, adds the records up with sumMap. Over every stored record, adversarial ones included:
  // the same groups, with the same counts, maps and sums. One test per rollup, each with its own time limit.
  it.each(rollupViewsInForce().map((v) => [v.target, v] as const))(
    "sorted bucket indices give %s's groups the same maps as its view's sumMap, bucket for bucket",
    async (_, v) => {
      const columns = await rows(
        'SELECT name, type FROM system.columns WHERE database = currentDatabase() AND table = {t:String} ORDER BY position',
        { t: v.target },
      );
      // Every column but the distinct-client states (random bytes, the same function either way).
      const kept = columns.filter((c) => !String(c.type).startsWith('AggregateFunction')).map((c) => String(c.name));
      const sorted = withSortedBuckets(v.select);
      for (const p of keptPhases(v.target)) expect(sorted, v.name).toContain(`${sortedBucketStateSql(p)} AS ${p}_hist`);
      const read = (select: string) =>
        rows(`SELECT ${kept.join(', ')} FROM (${select}) ORDER BY ${kept.join(', ')}`, {});
      const bySumMap = await read(v.select);
      expect(bySumMap.length, v.target).toBeGreaterThan(0);
      expect(await read(sorted), v.target).toEqual(bySumMap);
    },
  );

  it("pick the bucket of quantileExact's rank at every count from 1 to 300 records", async () => {
    // Record j of a group of n lies in the middle of bucket 2 + 3 · (j mod 90): buckets three apart, so a
    // percentile one rank off would be ≥ 15 % away; the counts repeat, as the merged rows of a rollup do.
    const got = await rows(
      `SELECT n, ${bucketPercentilesSql('h')} AS q, quantilesExact(${PERCENTILES})(tls) AS e
       FROM (SELECT n, tls, map(${bucketIndexSql('tls')}, toUInt64(1)) AS h
             FROM (SELECT n, toFloat32(${BUCKET_LOW_MS} * pow(${BUCKET_GROWTH}, 2 + 3 * (j % 90) - 0.5)) AS tls
                   FROM (SELECT number + 1 AS n FROM numbers(300)) ARRAY JOIN range(n) AS j))
       GROUP BY n ORDER BY n`,
      {},
    );
    expect(got).toHaveLength(300);
    for (const r of got)
      (r.q as number[]).forEach((q, i) => {
        const e = (r.e as number[])[i]!;
        expect(Math.abs(q - e) / e, `${r.n} records, p${PERCENTILES.split(', ')[i]}: ${q} vs exact ${e}`).toBeLessThan(
          1e-6,
        );
      });
  });

  it('are within the stated bound of quantileExact for every cut, group, phase and percentile', async () => {
    // Whole days read the daily cuts; a range of whole hours that is not whole days, the hourly grain (0013).
    const hours = { from: from + 5 * HOUR, to: end - 3 * HOUR };
    const cases: [Dimension[], string | null, { from: number; to: number }, RegExp][] = [
      [['country'], null, { from, to: end }, /^rollup-all-sites-by-/],
      [['stack', 'mode'], null, { from, to: end }, /^rollup-all-sites-by-/],
      [['country'], SITES[0]!.hostname, { from, to: end }, /^rollup-site-by-/],
      [['tlsVersion', 'handshakeClass'], SITES[1]!.hostname, { from, to: end }, /^rollup-site-by-/],
      [['country'], null, hours, /^rollup-all-sites-hourly-/],
      [['stack', 'mode'], null, hours, /^rollup-all-sites-hourly-/],
      [['country'], SITES[0]!.hostname, hours, /^rollup-site-hourly-/],
      [['versionEvidence'], null, hours, /^rollup-all-sites-hourly-/],
      // Country with the evidence or a browser, and the mix columns: the country cuts (0016).
      [['country', 'versionEvidence'], null, { from, to: end }, /^rollup-all-sites-by-country-versionEvidence-/],
      [['country', 'browser', 'stack'], SITES[0]!.hostname, { from, to: end }, /^rollup-site-by-country-browser-/],
      // The evidence or the crypto facts' source alone, and the mix columns: the evidence cuts (0017).
      [['versionEvidence', 'stack'], null, { from, to: end }, /^rollup-all-sites-by-versionEvidence-/],
      [['cryptoSource'], SITES[1]!.hostname, { from, to: end }, /^rollup-site-by-cryptoSource-/],
      // Country with the key-exchange group: the country and group cuts (0018).
      [['country', 'pq'], null, { from, to: end }, /^rollup-all-sites-by-country-kxGroup-/],
      // Two crypto columns together: the crypto rollup (0009).
      [['group', 'certKey'], null, { from, to: end }, /^rollup-all-sites-by-crypto$/],
      [['cipher', 'chainLength'], SITES[0]!.hostname, { from, to: end }, /^rollup-site-by-crypto$/],
    ];
    let compared = 0;
    let worst = 0;
    for (const [dimensions, site, range, read] of cases) {
      const built = buildCellSql(
        { table: 'rollup', filters: { ...range, site, clientCap: 0 }, dimensions, metrics: 'phases', limit: 1000 },
        20,
      );
      expect(built.readTable.name).toMatch(read);
      const keyOf = (r: Row) => dimensions.map((d) => r[`d_${d}`]).join('/');
      const exactSql = `
        SELECT ${dimensions.map((d) => `${dimensionSql(d, 'raw')} AS d_${d}`).join(', ')},
               ${ALL_PHASES.map((p) => `quantilesExact(${PERCENTILES})(${p}) AS e_${p}`).join(', ')}
        FROM handshakes
        WHERE ts >= fromUnixTimestamp64Milli({from:Int64}) AND ts < fromUnixTimestamp64Milli({to:Int64}) ${site ? 'AND site = {site:String}' : ''}
        GROUP BY ${dimensions.map((d) => `d_${d}`).join(', ')}`;
      const exact = new Map((await rows(exactSql, { ...range, ...(site ? { site } : {}) })).map((r) => [keyOf(r), r]));
      const fromRollup = await rows(built.sql, built.params);
      expect(fromRollup.length).toBe(exact.size);
      for (const r of fromRollup) {
        const e = exact.get(keyOf(r))!;
        for (const p of ALL_PHASES) {
          (r[`q_${p}`] as number[]).forEach((got, i) => {
            const want = (e[`e_${p}`] as number[])[i]!;
            // Below the first bucket the error is absolute (reported as 0); above, relative to the value, plus
            // Float32's rounding (the phases are stored as Float32: a value on a bucket edge is one ulp off it).
            const allowed = want < BUCKET_LOW_MS ? BUCKET_LOW_MS : want * (MAX_RELATIVE_ERROR + 2 ** -23);
            expect(
              Math.abs(got - want),
              `${keyOf(r)} ${p} p${PERCENTILES.split(', ')[i]}: ${got} vs exact ${want}`,
            ).toBeLessThanOrEqual(allowed);
            if (want >= BUCKET_LOW_MS) worst = Math.max(worst, Math.abs(got - want) / want);
            compared++;
          });
        }
      }
    }
    expect(compared).toBeGreaterThan(500);
    // The data reach the bound: values on bucket edges are reported half a bucket away.
    expect(worst).toBeGreaterThan(MAX_RELATIVE_ERROR * 0.9);
  }, 60_000);
});
