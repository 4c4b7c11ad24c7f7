/**
 * The published datasets over HTTP (src/datasets/plugin.ts): the monthly job writes the last month once it
 * is over and only once; `GET /v1/datasets` lists it with its rows and checksums; the files come back as
 * written, immutable (a year's cache, ETag = sha256, 304 on a match); malformed names and unknown
 * parameters get 400, absent months 404.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closesAt, latestClosedMonth, parseMonth } from '../../src/datasets/month';
import { DatasetFolder } from '../../src/datasets/served';
import { generate, insertRows } from '../support/generate';
import { removeDir, startApp, tempDir, type TestApp } from '../support/helpers';

const HOUR = 3_600_000;
const d = new Date();
const MONTH = parseMonth(`${new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - 2, 1)).toISOString().slice(0, 7)}`);
/** An instant at which MONTH is the latest month over. */
const NOW = closesAt(MONTH) + HOUR;

let t: TestApp;
const datasetsDir = tempDir('tlsrum-served-');
const sha = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

beforeAll(async () => {
  t = await startApp({ DATASETS_DIR: datasetsDir, DATASET_MIN_CLIENTS: '3' });
  const traffic = {
    site: 'a.example',
    from: MONTH.from + HOUR,
    to: MONTH.to - HOUR,
    rtt: 40,
    fullTls: 80,
    resumedTls: 40,
    resumedShare: 0.5,
    tls13Share: 1,
    h3Share: 0,
  };
  await insertRows(t.app.store.ingest, [
    ...generate({ ...traffic, records: 40, clients: 8, seed: 1 }),
    ...generate({ ...traffic, country: 'FR', records: 30, clients: 6, seed: 2 }),
  ]);
}, 60_000);

afterAll(async () => {
  await t?.close();
  if (t) removeDir(t.dataDir);
  removeDir(datasetsDir);
});

describe('the published datasets', () => {
  it('the monthly job writes the last month once it is over, and once only', async () => {
    expect(latestClosedMonth(NOW).month).toBe(MONTH.month);
    expect(await t.app.datasets.exportDue(closesAt(MONTH) - HOUR)).toBeNull(); // the month before is empty: nothing written
    expect(readdirSync(datasetsDir)).toEqual([]);
    const heavyBefore = t.app.store.queryPool.counts.heavy;
    expect(await t.app.datasets.exportDue(NOW)).toBe(MONTH.month);
    // A month of the raw table is read as heavy work: it never takes the dashboard's last slot (query-pool.ts).
    expect(t.app.store.queryPool.counts.heavy).toBeGreaterThan(heavyBefore);
    expect(readdirSync(join(datasetsDir, MONTH.month)).sort()).toEqual([
      'README.md',
      `tlsrum-${MONTH.month}.csv`,
      `tlsrum-${MONTH.month}.parquet`,
    ]);
    expect(await t.app.datasets.exportDue(NOW)).toBeNull();
  });

  it('GET /v1/datasets lists each month with its rows, file paths and checksums', async () => {
    const res = await t.app.inject({ url: '/v1/datasets' });
    expect(res.statusCode).toBe(200);
    const csvPath = join(datasetsDir, MONTH.month, `tlsrum-${MONTH.month}.csv`);
    const rows = readFileSync(csvPath, 'utf8').trim().split('\n').length - 1;
    expect(rows).toBeGreaterThan(0);
    expect(res.json()).toEqual({
      datasets: [
        {
          month: MONTH.month,
          rows,
          files: { parquet: `/v1/datasets/${MONTH.month}.parquet`, csv: `/v1/datasets/${MONTH.month}.csv` },
          sha256: { parquet: sha(join(datasetsDir, MONTH.month, `tlsrum-${MONTH.month}.parquet`)), csv: sha(csvPath) },
        },
      ],
    });
  });

  it('serves each file as written, cached for good, with its sha256 as ETag', async () => {
    for (const [ext, type] of [
      ['parquet', 'application/vnd.apache.parquet'],
      ['csv', 'text/csv; charset=utf-8'],
    ] as const) {
      const path = join(datasetsDir, MONTH.month, `tlsrum-${MONTH.month}.${ext}`);
      const res = await t.app.inject({ url: `/v1/datasets/${MONTH.month}.${ext}` });
      expect(res.statusCode).toBe(200);
      expect(res.rawPayload.equals(readFileSync(path))).toBe(true);
      expect(res.headers['content-type']).toBe(type);
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(res.headers.etag).toBe(`"${sha(path)}"`);
      expect(res.headers['content-disposition']).toBe(`attachment; filename="tlsrum-${MONTH.month}.${ext}"`);
      const again = await t.app.inject({
        url: `/v1/datasets/${MONTH.month}.${ext}`,
        headers: { 'if-none-match': `"${sha(path)}"` },
      });
      expect(again.statusCode).toBe(304);
      expect(again.rawPayload.length).toBe(0);
    }
  });

  it('answers 400 for a name that is not YYYY-MM.parquet or .csv, naming the form', async () => {
    for (const name of [
      '2026-13.csv',
      '2026-1.csv',
      `${MONTH.month}.json`,
      `${MONTH.month}.csv.gz`,
      'README.md',
      '..%2F..%2Fetc%2Fpasswd',
    ]) {
      const res = await t.app.inject({ url: `/v1/datasets/${name}` });
      expect(res.statusCode, name).toBe(400);
      expect(res.json().message).toMatch(/ask for YYYY-MM\.parquet or YYYY-MM\.csv/);
    }
  });

  it('answers 404 for a month not published', async () => {
    const res = await t.app.inject({ url: '/v1/datasets/2021-01.parquet' });
    expect(res.statusCode).toBe(404);
    expect(res.json().message).toBe('no dataset is published for 2021-01 (GET /v1/datasets lists those that are)');
  });

  it('answers 400 for an unknown query parameter', async () => {
    for (const url of ['/v1/datasets?month=2026-10', `/v1/datasets/${MONTH.month}.csv?download=1`]) {
      const res = await t.app.inject({ url });
      expect(res.statusCode, url).toBe(400);
      expect(res.json().message).toMatch(/unknown query parameter/);
    }
  });

  it('lists nothing from a folder that does not exist, and skips a month missing a file', async () => {
    expect(await new DatasetFolder(join(datasetsDir, 'none')).list()).toEqual([]);
    const half = tempDir('tlsrum-half-');
    mkdirSync(join(half, '2021-01'));
    writeFileSync(join(half, '2021-01', 'tlsrum-2021-01.parquet'), 'PAR1');
    expect(await new DatasetFolder(half).list()).toEqual([]);
    removeDir(half);
  });
});
