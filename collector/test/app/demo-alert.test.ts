/** The demo data has one site whose alert fires: app.example.io's resumption dropped two days ago. */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { generateDemoData } from '../../src/demo/generate';
import { DEMO_VISIT_RECORDS } from '../../src/demo/profiles';
import { newReadToken } from '../../src/sites/auth';
import { removeDir, startApp, type TestApp } from '../support/helpers';

const ADMIN = 'admin-token-0123456789';
const END = Date.parse('2026-11-20T12:00:00Z');
let t: TestApp;

beforeAll(async () => {
  t = await startApp({ ADMIN_TOKEN: ADMIN, ALERT_INTERVAL_MS: '0', ALERT_WINDOWS: 'day', MIN_CLIENTS_PER_CELL: '20' });
  await t.app.storeStatus.whenReady;
  // As `pnpm demo` generates them: clients' visits of several records.
  await generateDemoData(t.app.store.ingest, {
    records: 50_000,
    days: 10,
    end: END,
    seed: 7,
    visitRecords: DEMO_VISIT_RECORDS,
  });
  for (const site of ['app.example.io', 'shop.example.com']) await t.app.sites.register(site, newReadToken().hash);
}, 120_000);
afterAll(async () => {
  await t.close();
  removeDir(t.dataDir);
});

it("fires app.example.io's resumption alert on the day window, and nothing for an unchanged site", async () => {
  await t.app.alerts.evaluate(END);
  const get = async (site: string) =>
    (await t.app.inject({ url: `/v1/alerts?site=${site}`, headers: { authorization: `Bearer ${ADMIN}` } })).json() as {
      alerts: { check: string; status: string; current: number; baseline: number }[];
    };
  const app = (await get('app.example.io')).alerts;
  expect(app.find((a) => a.check === 'resumption_drop')).toMatchObject({ status: 'firing' });
  const drop = app.find((a) => a.check === 'resumption_drop')!;
  expect(drop.baseline - drop.current).toBeGreaterThan(0.25);
  expect((await get('shop.example.com')).alerts.filter((a) => a.status === 'firing')).toEqual([]);
}, 60_000);
