/**
 * Distinct clients (src/query/clients.ts) on the real store: the raw count and the rollup's merged
 * uniqUpTo states are both exact below the rollup's cap, so the two tables suppress the same cells for
 * any threshold up to it; the raw count stays exact a little beyond, and every view stores the states
 * the queries merge.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RAW_CLIENTS, ROLLUP_CLIENT_HASH, ROLLUP_CLIENTS, ROLLUP_CLIENTS_CAP } from '../../src/query/clients';
import { openStore, type Store } from '../../src/platform/store/clients';
import { rollupViewsInForce } from '../../src/platform/store/migrate';
import { removeDir, tempDir } from '../support/helpers';

/** The raw count is exact up to here (uniqCombined64(12) keeps every hash up to 127 values). */
const RAW_EXACT_UP_TO = 127;

let store: Store;
const dir = tempDir();
beforeAll(() => {
  store = openStore({ dataDir: dir, clickhouse: null });
});
afterAll(async () => {
  await store.close();
  removeDir(dir);
});

describe('distinct clients', () => {
  it('every rollup view stores the states the rollup queries merge', () => {
    const n = ROLLUP_CLIENTS_CAP - 1;
    expect(ROLLUP_CLIENTS).toBe(`uniqUpToMerge(${n})(clients)`);
    const views = rollupViewsInForce();
    expect(views.length).toBeGreaterThanOrEqual(7);
    for (const view of views)
      expect(view.select, view.name).toContain(`uniqUpToState(${n})(${ROLLUP_CLIENT_HASH}) AS clients`);
  });

  it('raw and rollup agree exactly below the cap; the rollup says "cap" beyond it, the raw count stays exact to 127', async () => {
    // For n = 1 … 200 tokens, each split over several rows (two per token, as repeat visits), count them
    // both ways: the raw function over the rows, and two per-day states merged as the rollup does.
    const rows = await (
      await store.query.query({
        query: `
          SELECT n, ${RAW_CLIENTS} AS raw, ${ROLLUP_CLIENTS.replace('(clients)', '(state)')} AS rollup
          FROM (
            SELECT n, clientToken, uniqUpToState(${ROLLUP_CLIENTS_CAP - 1})(${ROLLUP_CLIENT_HASH}) AS state
            FROM (SELECT n, concat('client-', toString(number % n), '-tok') AS clientToken, number % 2 AS day
                  FROM numbers(400) ARRAY JOIN range(1, 201) AS n WHERE number < 2 * n)
            GROUP BY n, day, clientToken
          )
          GROUP BY n ORDER BY n`,
        format: 'JSONEachRow',
      })
    ).json<{ n: number; raw: number; rollup: number }>();
    expect(rows).toHaveLength(200);
    for (const { n, raw, rollup } of rows) {
      if (n <= RAW_EXACT_UP_TO) expect(Number(raw), `raw count of ${n}`).toBe(n);
      expect(Number(rollup), `rollup count of ${n}`).toBe(Math.min(n, ROLLUP_CLIENTS_CAP));
    }
  });
});
