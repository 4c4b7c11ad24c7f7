/**
 * The dataset's suppression rule (src/datasets/plan.ts), on records held in memory: whatever the data, every
 * published row holds at least the threshold of distinct clients, and no combination of published rows — of
 * one month or of several — equals a suppressed cell: a cell under the threshold (its records, its clients)
 * is never in the span of the rows seen as sets of cells. The check is linear algebra over the cells (exact
 * rank over the integers), so it holds for any counts, not only for those a search happens to try; and it
 * catches the leak of the naive rule (a coarse row over all its children published beside large children).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countInMemory, groupKey, levelOf, planRows, type PlanRecord } from '../../src/datasets/plan';

/** A fine cell's key, prefixed by its month. */
const cellOf = (month: string, r: PlanRecord) => `${month}#${groupKey(r, 0)}`;

/** Rank of 0/1 row vectors, exactly (fraction-free Gaussian elimination on BigInt). */
function rank(rows: bigint[][]): number {
  const m = rows.map((r) => [...r]);
  let rnk = 0;
  const cols = m[0]?.length ?? 0;
  for (let c = 0; c < cols && rnk < m.length; c++) {
    const pivot = m.findIndex((row, i) => i >= rnk && row[c] !== 0n);
    if (pivot < 0) continue;
    [m[rnk], m[pivot]] = [m[pivot]!, m[rnk]!];
    for (let i = 0; i < m.length; i++) {
      if (i === rnk || m[i]![c] === 0n) continue;
      const a = m[rnk]![c]!;
      const b = m[i]![c]!;
      m[i] = m[i]!.map((v, j) => v * a - m[rnk]![j]! * b);
    }
    rnk++;
  }
  return rnk;
}

interface Row {
  cells: Set<string>;
  clients: number;
}

/**
 * The cells under the threshold whose indicator vector lies in the span of the rows' (so some signed sum of
 * rows is exactly that cell: its records, its clients' records, its histogram).
 */
function derivableSmallCells(rows: Row[], cells: Map<string, Set<string>>, threshold: number): string[] {
  const order = [...cells.keys()];
  const vec = (s: Set<string>) => order.map((c) => (s.has(c) ? 1n : 0n));
  const base = rows.map((r) => vec(r.cells));
  const r0 = rank(base);
  return order.filter((c) => cells.get(c)!.size < threshold && rank([...base, vec(new Set([c]))]) === r0);
}

/** The published rows as sets of fine cells, with their distinct clients. */
/** Rows published at each level over every run: the property must see merged rows, not only fine ones. */
const rowsByLevel = [0, 0, 0, 0];

async function publishedRows(months: Map<string, PlanRecord[]>, threshold: number): Promise<Row[]> {
  const rows: Row[] = [];
  for (const [month, records] of months) {
    const published = await planRows(countInMemory(records), threshold);
    published.forEach((keys, level) => (rowsByLevel[level]! += keys.length));
    const byRow = new Map<string, Row>();
    for (const r of records) {
      const level = levelOf(r, published);
      if (level === null) continue;
      const key = `${month}#${groupKey(r, level)}`;
      let row = byRow.get(key);
      if (!row) byRow.set(key, (row = { cells: new Set(), clients: 0 }));
      row.cells.add(cellOf(month, r));
    }
    for (const [key, row] of byRow) {
      row.clients = new Set(
        records
          .filter((r) => levelOf(r, published) !== null && `${month}#${groupKey(r, levelOf(r, published)!)}` === key)
          .map((r) => r.client),
      ).size;
      rows.push(row);
    }
  }
  return rows;
}

function cellsOf(months: Map<string, PlanRecord[]>): Map<string, Set<string>> {
  const cells = new Map<string, Set<string>>();
  for (const [month, records] of months)
    for (const r of records) {
      const k = cellOf(month, r);
      if (!cells.has(k)) cells.set(k, new Set());
      cells.get(k)!.add(r.client);
    }
  return cells;
}

/** Records over small key domains (so that cells collide, merge and straddle the threshold), in one or two months. */
const recordArb = fc.record({
  country: fc.constantFrom('DE', 'FR'),
  browser: fc.constantFrom('chrome', 'firefox', 'edge'),
  protocol: fc.constantFrom('h2', 'h3'),
  tlsVersion: fc.constantFrom('1.3', '1.2'),
  mode: fc.constantFrom('full', 'resumed'),
  keyExchange: fc.constantFrom('hybrid', 'classical', 'unknown'),
  client: fc.integer({ min: 0, max: 40 }).map((i) => `c${i}`),
});
/** Clusters of identical keys with many clients, so that some cells pass the threshold. */
const clusterArb = fc
  .tuple(recordArb, fc.integer({ min: 1, max: 12 }))
  .map(([r, n]) => Array.from({ length: n }, (_, i) => ({ ...r, client: `${r.client}-${i}` })));
const monthArb = fc
  .array(
    fc.oneof(
      recordArb.map((r) => [r]),
      clusterArb,
    ),
    { minLength: 1, maxLength: 40 },
  )
  .map((xs) => xs.flat());

describe('the dataset publishes rows no subtraction can take apart', () => {
  it('every row has at least the threshold of distinct clients, and no signed sum of rows (across months too) is a suppressed cell', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(monthArb, { minLength: 1, maxLength: 2 }),
        fc.integer({ min: 2, max: 6 }),
        async (monthRecords, threshold) => {
          const months = new Map(monthRecords.map((rs, i) => [`2026-0${i + 1}`, rs]));
          const rows = await publishedRows(months, threshold);
          for (const row of rows) expect(row.clients).toBeGreaterThanOrEqual(threshold);
          // Rows never overlap: every cell is in at most one row.
          const seen = new Set<string>();
          for (const row of rows)
            for (const c of row.cells) {
              expect(seen.has(c)).toBe(false);
              seen.add(c);
            }
          expect(derivableSmallCells(rows, cellsOf(months), threshold)).toEqual([]);
        },
      ),
      { numRuns: 300 },
    );
    expect(
      rowsByLevel.every((n) => n > 0),
      `rows per level: ${rowsByLevel.join(', ')}`,
    ).toBe(true);
  });

  it('merges suppressed cells into rows without browser, then without key exchange, then without both', async () => {
    const rec = (browser: string, keyExchange: string, n: number, tag: string): PlanRecord[] =>
      Array.from({ length: n }, (_, i) => ({
        country: 'DE',
        browser,
        protocol: 'h2',
        tlsVersion: '1.3',
        mode: 'full',
        keyExchange,
        client: `${tag}${i}`,
      }));
    const records = [
      ...rec('chrome', 'hybrid', 5, 'a'), // a row of its own
      ...rec('firefox', 'hybrid', 2, 'b'), // with edge's: a row without browser
      ...rec('edge', 'hybrid', 3, 'c'),
      ...rec('firefox', 'classical', 3, 'd'), // with firefox unknown: a row without key exchange
      ...rec('firefox', 'unknown', 2, 'e'),
      ...rec('edge', 'classical', 1, 'f'), // too small at every level but the last, where alone it stays small
    ];
    const published = await planRows(countInMemory(records), 5);
    expect(published).toEqual([
      ['DE|chrome|h2|1.3|full|hybrid'],
      ['DE|*|h2|1.3|full|hybrid'],
      ['DE|firefox|h2|1.3|full|*'],
      [],
    ]);
    expect(levelOf(records.at(-1)!, published)).toBeNull();
  });

  it('the check catches the naive rule: a coarse row over all its children beside the large ones gives the small one away', () => {
    // Cells: chrome (large, published), firefox (small). Naive rows: chrome, and all browsers together.
    const cells = new Map([
      ['chrome', new Set(['a', 'b', 'c', 'd', 'e'])],
      ['firefox', new Set(['f'])],
    ]);
    const naive: Row[] = [
      { cells: new Set(['chrome']), clients: 5 },
      { cells: new Set(['chrome', 'firefox']), clients: 6 },
    ];
    expect(derivableSmallCells(naive, cells, 5)).toEqual(['firefox']);
  });
});
