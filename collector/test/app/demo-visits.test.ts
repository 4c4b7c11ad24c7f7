/**
 * The demo generator's visits: a client's burst of connections, sent as one batch, as the extension and the
 * beacon send theirs. What a visit shares, and what it does not, read back from the stored records.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemoData } from '../../src/demo/generate';
import { DEMO_VISIT_RECORDS, SITES } from '../../src/demo/profiles';
import { removeDir, startApp, type TestApp } from '../support/helpers';

const END = Date.parse('2026-11-20T00:00:00Z');
const RECORDS = 24_000;
let t: TestApp;

const rows = async <T>(query: string): Promise<T[]> =>
  (await (await t.app.store.query.query({ query, format: 'JSONEachRow' })).json()) as T[];

/** The demo's visits over the last 5 days before END (the same seed each time). */
const generateVisits = () =>
  generateDemoData(t.app.store.ingest, {
    records: RECORDS,
    days: 5,
    end: END,
    seed: 3,
    visitRecords: DEMO_VISIT_RECORDS,
  });

beforeAll(async () => {
  t = await startApp({ ALERT_INTERVAL_MS: '0' });
  await t.app.storeStatus.whenReady;
  // Two generations side by side, told apart by their days: visits in the last 5 days, single records before.
  await generateVisits();
  await generateDemoData(t.app.store.ingest, { records: RECORDS, days: 5, end: END - 5 * 86_400_000, seed: 3 });
}, 120_000);
afterAll(async () => {
  await t.close();
  removeDir(t.dataDir);
});

const VISITS = `ts >= fromUnixTimestamp64Milli(${END - 5 * 86_400_000}, 'UTC')`;

interface Visit {
  records: number;
  tokens: number;
  sources: number;
  src: string;
  sites: number;
  unregistered: number;
  clients: number;
  spanMs: number;
}

describe('demo visits', () => {
  it('a visit is one batch of one client, within five minutes: one token (two across midnight), country, browser and source', async () => {
    const visits = await rows<Visit>(`
      SELECT count() AS records, uniqExact(clientToken) AS tokens, uniqExact(source) AS sources,
        uniqExact(site) AS sites, uniqExact(country, browser, browserMajor, os) AS clients,
        toUnixTimestamp64Milli(max(ts)) - toUnixTimestamp64Milli(min(ts)) AS spanMs
      FROM handshakes WHERE ${VISITS} GROUP BY batchId`);
    expect(visits.length).toBe(RECORDS / DEMO_VISIT_RECORDS);
    for (const v of visits) {
      expect(Number(v.records)).toBe(DEMO_VISIT_RECORDS);
      expect(Number(v.sources)).toBe(1);
      expect(Number(v.clients)).toBe(1);
      expect(Number(v.spanMs)).toBeLessThan(300_000);
      expect(Number(v.tokens)).toBeLessThanOrEqual(2);
    }
    // A visit crosses midnight rarely: nearly every visit is one token.
    expect(visits.filter((v) => Number(v.tokens) === 1).length).toBeGreaterThan(0.97 * visits.length);
  });

  it("a site's beacon reports a visit to its own site only; a browser's or the runner's visit goes to at most three sites", async () => {
    const visits = await rows<Visit>(`
      SELECT any(source) AS src, uniqExact(site) AS sites, countIf(site = '') AS unregistered
      FROM handshakes WHERE ${VISITS} GROUP BY batchId`);
    const page = visits.filter((v) => v.src === 'page');
    const other = visits.filter((v) => v.src !== 'page');
    expect(page.length).toBeGreaterThan(0.2 * visits.length);
    for (const v of page) expect([Number(v.sites), Number(v.unregistered)]).toEqual([1, 0]);
    for (const v of other) expect(Number(v.sites)).toBeLessThanOrEqual(3);
    expect(other.some((v) => Number(v.sites) > 1)).toBe(true);
  });

  it('clients come back: one client token meets the same site many times, where single records nearly never do', async () => {
    const [visits, single] = await rows<{ perTokenSite: number; sites: number }>(`
      SELECT ts >= fromUnixTimestamp64Milli(${END - 5 * 86_400_000}, 'UTC') AS visits,
        count() / uniqExact(clientToken, site) AS perTokenSite, uniqExact(site) AS sites
      FROM handshakes GROUP BY visits ORDER BY visits DESC`);
    expect(Number(visits!.perTokenSite)).toBeGreaterThan(2);
    expect(Number(single!.perTokenSite)).toBeLessThan(1.5);
    // Every demo site, and unregistered ones, in both.
    expect(Number(visits!.sites)).toBe(new Set(SITES.map((s) => s.hostname)).size);
    expect(Number(single!.sites)).toBe(new Set(SITES.map((s) => s.hostname)).size);
  });

  it('single records are each their own batch', async () => {
    const [r] = await rows<{ n: number; batches: number }>(
      `SELECT count() AS n, uniqExact(batchId) AS batches FROM handshakes WHERE NOT (${VISITS})`,
    );
    expect(Number(r!.batches)).toBe(RECORDS);
    expect(Number(r!.n)).toBe(RECORDS);
  });

  it('the same seed gives the same visits, batch ids included', async () => {
    const digest = async () =>
      rows<{ h: string }>(
        `SELECT groupBitXor(cityHash64(batchId, clientToken, site, ts)) AS h FROM handshakes WHERE ${VISITS}`,
      );
    const before = await digest();
    await t.app.store.ingest.command({ query: `DELETE FROM handshakes WHERE ${VISITS}` });
    await generateVisits();
    expect(await digest()).toEqual(before);
  });
});
