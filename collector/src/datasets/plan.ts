/**
 * Which rows the dataset publishes: the suppression rule, apart from the store so that a test can run it on
 * records held in memory (test/datasets-plan.test.ts) and the export on the store (export.ts), alike.
 *
 * The rule — **every record is in at most one row, and every row has at least DATASET_MIN_CLIENTS distinct
 * clients** — applied level by level:
 *
 *   level 0  country × browser × protocol × TLS version × handshake mode × key exchange: a row for each cell
 *            with at least the threshold of clients;
 *   level 1  the same without browser (`*`): the records no level-0 row holds, per remaining keys;
 *   level 2  the same without key exchange (`*`): the records neither level 0 nor 1 holds;
 *   level 3  without both: the records no row above holds.
 *   Records no level takes are in no row.
 *
 * So a merged row is the union of **suppressed** cells only, never of a cell that also has a row of its own:
 * rows never overlap, and any sum or difference of rows (of one month or several: months hold different
 * records) is a union of whole rows — each of at least the threshold of clients. No subtraction isolates a
 * smaller group; a merged row holding a single small cell cannot exist, since it would be that cell, under
 * the threshold. (Publishing a coarse row over *all* its children instead, beside the large children, gives
 * the small child as coarse − the others: the test shows the rank check catching exactly that.)
 *
 * The rows' records also add up: summing `records` or histogram buckets over rows never counts a record twice.
 */

export const LEVELS = [
  { browser: true, keyExchange: true },
  { browser: false, keyExchange: true },
  { browser: true, keyExchange: false },
  { browser: false, keyExchange: false },
] as const;
export type Level = (typeof LEVELS)[number];

/**
 * The groups of `level` (keys as strings) holding at least `threshold` distinct clients among the records
 * that no group of the levels before it took (`taken[i]`: level i's published groups).
 */
export type CountGroups = (
  level: number,
  taken: readonly (readonly string[])[],
  threshold: number,
) => Promise<string[]>;

/** Each level's published group keys, in level order. */
export async function planRows(count: CountGroups, threshold: number): Promise<string[][]> {
  const taken: string[][] = [];
  for (let level = 0; level < LEVELS.length; level++) taken.push((await count(level, taken, threshold)).sort());
  return taken;
}

/** One record as the planner sees it (the in-memory form; the store's columns are export.ts's). */
export interface PlanRecord {
  country: string;
  browser: string;
  protocol: string;
  tlsVersion: string;
  mode: string;
  keyExchange: string;
  client: string;
}

/** A record's group key at a level: its keys joined by `|`, merged ones as `*`. */
export function groupKey(r: PlanRecord, level: number): string {
  const l = LEVELS[level]!;
  return [
    r.country,
    l.browser ? r.browser : '*',
    r.protocol,
    r.tlsVersion,
    r.mode,
    l.keyExchange ? r.keyExchange : '*',
  ].join('|');
}

/** The level a record's row is at, or null when it is in no row. */
export function levelOf(r: PlanRecord, published: readonly (readonly string[])[]): number | null {
  for (let level = 0; level < published.length; level++)
    if (published[level]!.includes(groupKey(r, level))) return level;
  return null;
}

/** CountGroups over records in memory. */
export const countInMemory =
  (records: readonly PlanRecord[]): CountGroups =>
  async (level, taken, threshold) => {
    const clients = new Map<string, Set<string>>();
    for (const r of records) {
      if (levelOf(r, taken) !== null) continue;
      const k = groupKey(r, level);
      let set = clients.get(k);
      if (!set) clients.set(k, (set = new Set()));
      set.add(r.client);
    }
    return [...clients].filter(([, s]) => s.size >= threshold).map(([k]) => k);
  };
