/**
 * The monthly dataset job after a failure (src/datasets/plugin.ts): a month it could not write for a reason
 * that can pass (here the folder could not be made, as on a full or read-only disk) is tried again at the
 * next check, not given up until a restart.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { closesAt, parseMonth } from '../../src/datasets/month';
import { generate, insertRows } from '../support/generate';
import { removeDir, startApp, tempDir } from '../support/helpers';

const HOUR = 3_600_000;
const d = new Date();
const MONTH = parseMonth(`${new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - 2, 1)).toISOString().slice(0, 7)}`);
/** An instant at which MONTH is the latest month over. */
const NOW = closesAt(MONTH) + HOUR;

describe('the monthly dataset job after a failure', () => {
  it('tries the month again at the next check when writing it failed for a passing reason', async () => {
    const parent = tempDir('tlsrum-blocked-');
    // DATASETS_DIR is a file: the month's folder cannot be made in it.
    const dir = join(parent, 'datasets');
    writeFileSync(dir, 'not a folder');
    const t = await startApp({ DATASETS_DIR: dir, DATASET_MIN_CLIENTS: '3' });
    try {
      await insertRows(
        t.app.store.ingest,
        generate({
          site: 'a.example',
          from: MONTH.from + HOUR,
          to: MONTH.to - HOUR,
          rtt: 40,
          fullTls: 80,
          resumedTls: 40,
          resumedShare: 0.5,
          tls13Share: 1,
          h3Share: 0,
          records: 40,
          clients: 8,
          seed: 3,
        }),
      );
      expect(await t.app.datasets.exportDue(NOW)).toBeNull();
      rmSync(dir);
      mkdirSync(dir);
      expect(await t.app.datasets.exportDue(NOW)).toBe(MONTH.month);
      expect(readdirSync(join(dir, MONTH.month))).toContain(`tlsrum-${MONTH.month}.parquet`);
    } finally {
      await t.close();
      removeDir(t.dataDir);
      removeDir(parent);
    }
  });
});
