/**
 * A site owner's own synthetic runs (real embedded store, `app.inject`): sent with the site's read token,
 * they are stored as the owner's, and that token reads them with source=synthetic without the people
 * threshold. What the exemption must never do: show anyone else's records, lift the threshold for anyone
 * without the token, open another site's runs, or change what the alerts count.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HandshakeRecord } from '@tlsrum/shared';
import type { QueryAnswer } from '@tlsrum/shared/query/schemas';
import { queryWindowPair } from '../../src/alerts/window-query';
import {
  countRows,
  makeBatch,
  makeRecords,
  metricValue,
  postBatch,
  startApp,
  removeDir,
  storedRows,
  type TestApp,
} from '../support/helpers';

const ADMIN = 'admin-token-for-owner-runs';
const SITE_A = 'www.example.com';
const SITE_B = 'shop.example.org';

let t: TestApp;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  t = await startApp({ ADMIN_TOKEN: ADMIN, MIN_CLIENTS_PER_CELL: '20' });
  for (const hostname of [SITE_A, SITE_B]) {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/sites',
      payload: { hostname },
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    expect(res.statusCode).toBe(201);
    tokens[hostname] = res.json<{ readToken: string }>().readToken;
  }
});
afterAll(async () => {
  await t.close();
  removeDir(t.dataDir);
});

/** One synthetic run: `n` records of one client token (as `pnpm synth` sends them) for `site`. */
const run = (site: string, n: number, clientToken: string, overrides: Partial<HandshakeRecord> = {}) =>
  makeRecords(n, { site, source: 'synthetic', clientToken, ...overrides });

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function ask(route: string, query: string, token?: string) {
  const res = await t.app.inject({
    method: 'GET',
    url: `/v1/${route}?${query}`,
    headers: token ? bearer(token) : {},
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<QueryAnswer>();
}

const shown = (a: QueryAnswer) => a.cells.filter((c) => !c.suppressed);
const recordsShown = (a: QueryAnswer) => shown(a).reduce((n, c) => n + (c.records ?? 0), 0);

describe('ingest with a read token: only the token site’s synthetic runs, all or nothing', () => {
  it('a batch of the site’s synthetic runs is accepted and stored as the owner’s', async () => {
    const batch = makeBatch(run(SITE_A, 4, 'owner-ingest-run'));
    const res = await postBatch(t.app, batch, { headers: bearer(tokens[SITE_A]!) });
    expect(res.statusCode, res.body).toBe(202);
    const rows = await storedRows(t.app, `batchId = '${batch.batchId}'`);
    expect(rows.map((r) => Number(r.owner))).toEqual([1, 1, 1, 1]);
  });

  it('without a token nothing changes: accepted, not the owner’s', async () => {
    const batch = makeBatch(run(SITE_A, 2, 'anyone-ingest-run'));
    expect((await postBatch(t.app, batch)).statusCode).toBe(202);
    const rows = await storedRows(t.app, `batchId = '${batch.batchId}'`);
    expect(rows.map((r) => Number(r.owner))).toEqual([0, 0]);
  });

  it('a record that is not synthetic refuses the whole batch (403, naming the record), nothing stored', async () => {
    const before = await countRows(t.app.store);
    const records = [...run(SITE_A, 2, 'owner-mixed'), ...makeRecords(1, { site: SITE_A, source: 'rum' })];
    const res = await postBatch(t.app, makeBatch(records), { headers: bearer(tokens[SITE_A]!) });
    expect(res.statusCode).toBe(403);
    expect(res.json<{ message: string }>().message).toMatch(
      /body\/records\/2\/source is "rum".*only that site's own synthetic runs/,
    );
    await t.app.ingest.flush();
    expect(await countRows(t.app.store)).toBe(before);
  });

  it('a record of another site refuses the whole batch (403, naming the record and the token’s site), nothing stored', async () => {
    const before = await countRows(t.app.store);
    const records = [...run(SITE_A, 1, 'owner-other-site'), ...run(SITE_B, 1, 'owner-other-site')];
    const res = await postBatch(t.app, makeBatch(records), { headers: bearer(tokens[SITE_A]!) });
    expect(res.statusCode).toBe(403);
    expect(res.json<{ message: string }>().message).toMatch(
      new RegExp(`body/records/1/site is "${SITE_B}", but this read token is for ${SITE_A}`),
    );
    const noSite = await postBatch(t.app, makeBatch(run(SITE_A, 1, 'owner-no-site', { site: null })), {
      headers: bearer(tokens[SITE_A]!),
    });
    expect(noSite.statusCode).toBe(403);
    expect(noSite.json<{ message: string }>().message).toMatch(/body\/records\/0\/site is empty/);
    await t.app.ingest.flush();
    expect(await countRows(t.app.store)).toBe(before);
  });

  it('an unknown token is refused (401) and the admin token marks nothing (403); nothing stored; /metrics counts both', async () => {
    const before = await countRows(t.app.store);
    const unknown = await postBatch(t.app, makeBatch(run(SITE_A, 1, 'owner-bad-token')), {
      headers: bearer('tlsrum_rt_not-a-token-anyone-was-given-0000000000000000'),
      ip: '127.0.9.1',
    });
    expect(unknown.statusCode).toBe(401);
    expect(unknown.json<{ message: string }>().message).toMatch(/unknown or revoked read token/);
    const admin = await postBatch(t.app, makeBatch(run(SITE_A, 1, 'owner-admin-token')), { headers: bearer(ADMIN) });
    expect(admin.statusCode).toBe(403);
    expect(admin.json<{ message: string }>().message).toMatch(/admin token belongs to no site/);
    await t.app.ingest.flush();
    expect(await countRows(t.app.store)).toBe(before);
    const metrics = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(metricValue(metrics, 'tlsrum_batches_rejected_total{reason="unauthorized"}')).toBe(1);
    expect(metricValue(metrics, 'tlsrum_batches_rejected_total{reason="forbidden"}')).toBeGreaterThanOrEqual(3);
  });
});

describe('the owner’s own runs, read with the site’s token and source=synthetic', () => {
  const OWNER_A = 'owner-run-site-a';
  beforeAll(async () => {
    // Site A: the owner's run (7 records, one client), and a stranger's synthetic run of the same site sent
    // without the token (5 records). Site B: its owner's run (3 records).
    for (const [records, token] of [
      [run(SITE_A, 7, OWNER_A), tokens[SITE_A]],
      [run(SITE_A, 5, 'stranger-run-site-a'), undefined],
      [run(SITE_B, 3, 'owner-run-site-b'), tokens[SITE_B]],
    ] as const) {
      const res = await postBatch(t.app, makeBatch([...records]), token ? { headers: bearer(token) } : {});
      expect(res.statusCode, res.body).toBe(202);
    }
    await t.app.ingest.flush();
  });

  /** Site A's owner rows stored so far (this file's earlier ingest tests add some). */
  async function ownerRowsOfA(): Promise<number> {
    return (await storedRows(t.app, `site = '${SITE_A}' AND owner = 1`)).length;
  }

  it('shows a one-client cell with its figures: no suppression, no fewClients, every route says ownSynthetic', async () => {
    const own = await ownerRowsOfA();
    const compare = await ask('compare', 'source=synthetic&dimensions=protocol', tokens[SITE_A]);
    expect(compare).toMatchObject({ ownSynthetic: true, table: 'raw', site: SITE_A, minClients: 20 });
    expect(compare.cells).toHaveLength(1);
    const cell = compare.cells[0]!;
    expect(cell.suppressed).toBeUndefined();
    expect(cell.fewClients).toBeUndefined();
    // The owner's two runs so far: two client tokens, every record (no per-client cap of 5).
    expect(cell).toMatchObject({ records: own, clients: 2 });
    expect(cell.tls?.p50).toBeGreaterThan(0);
    expect(Object.keys(cell.mix?.protocol ?? {})).toContain('h2');

    // Asking for the rollup changes nothing: the rollups do not know who sent a record.
    const rollup = await ask('compare', 'source=synthetic&dimensions=protocol&table=rollup', tokens[SITE_A]);
    expect(rollup).toMatchObject({ ownSynthetic: true, table: 'raw' });
    expect(recordsShown(rollup)).toBe(own);

    const phases = await ask('phases', 'source=synthetic', tokens[SITE_A]);
    expect(phases.ownSynthetic).toBe(true);
    expect(recordsShown(phases)).toBe(own);
    const map = await ask('map', 'source=synthetic', tokens[SITE_A]);
    expect(map.ownSynthetic).toBe(true);
    expect(shown(map).map((c) => c.key.country)).toEqual(['DE']);
    for (const interval of ['hour', 'day']) {
      const series = await ask('timeseries', `source=synthetic&interval=${interval}`, tokens[SITE_A]);
      expect(series.ownSynthetic).toBe(true);
      expect(series.cells.every((c) => !c.suppressed && !c.fewClients)).toBe(true);
      expect(recordsShown(series)).toBe(own);
    }
  });

  it("a third party's synthetic records for the same site (sent without the token) never appear in the exempt view", async () => {
    const a = await ask('compare', 'source=synthetic&dimensions=browser', tokens[SITE_A]);
    expect(recordsShown(a)).toBe(await ownerRowsOfA());
    // The stranger's run is stored, as synthetic, for site A: it is only left out of the owner's view.
    expect((await storedRows(t.app, `clientToken = 'stranger-run-site-a'`)).length).toBe(5);
    const filtered = await ask('compare', `source=synthetic&browser=firefox&dimensions=protocol`, tokens[SITE_A]);
    expect(recordsShown(filtered)).toBe(await ownerRowsOfA());
  });

  it('without the token, owner rows stay under the threshold', async () => {
    // No token: every site together, source synthetic: a handful of clients, all suppressed.
    const anyone = await ask('compare', 'source=synthetic&dimensions=protocol');
    expect(anyone.ownSynthetic).toBeUndefined();
    expect(anyone.cells.length).toBeGreaterThan(0);
    expect(anyone.cells.every((c) => c.suppressed)).toBe(true);
    // The admin token reads site A with the threshold: it is no site's owner.
    const admin = await ask('compare', `site=${SITE_A}&source=synthetic&dimensions=protocol`, ADMIN);
    expect(admin.ownSynthetic).toBeUndefined();
    expect(admin.cells.every((c) => c.suppressed)).toBe(true);
    // The site's own token without source=synthetic: the threshold as ever, owner rows counted like any record.
    for (const query of ['dimensions=protocol', 'dimensions=source', 'source=rum&dimensions=protocol']) {
      const mine = await ask('compare', query, tokens[SITE_A]);
      expect(mine.ownSynthetic).toBeUndefined();
      expect(shown(mine)).toEqual([]);
    }
  });

  it("the token of site A with source=synthetic cannot read site B's owner rows", async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: `/v1/compare?site=${SITE_B}&source=synthetic`,
      headers: bearer(tokens[SITE_A]!),
    });
    expect(res.statusCode).toBe(403);
    const a = await ask('compare', 'source=synthetic&dimensions=protocol', tokens[SITE_A]);
    expect(a.site).toBe(SITE_A);
    expect(recordsShown(a)).toBe(await ownerRowsOfA());
    // Site B's token sees B's run, and only it.
    const b = await ask('compare', 'source=synthetic&dimensions=protocol', tokens[SITE_B]);
    expect(b).toMatchObject({ ownSynthetic: true, site: SITE_B });
    expect(shown(b).map((c) => [c.records, c.clients])).toEqual([[3, 1]]);
  });

  it('alerts are not changed: their windows count owner rows like any synthetic record, capped per client', async () => {
    const now = Date.now();
    const window = (source: string | null) =>
      queryWindowPair(t.app.store.query, {
        site: SITE_A,
        current: { from: now - 3_600_000, to: now + 60_000 },
        baseline: { from: now - 8 * 86_400_000, to: now - 7 * 86_400_000 },
        source,
        clientCap: 5,
      });
    const synthetic = await window('synthetic');
    // The owner's 7-record run counts 5 (the cap of one client), as it would without the token.
    const rows = await storedRows(t.app, `site = '${SITE_A}' AND source = 'synthetic'`);
    const perToken = new Map<string, number>();
    for (const r of rows) perToken.set(String(r.clientToken), (perToken.get(String(r.clientToken)) ?? 0) + 1);
    expect(perToken.get(OWNER_A)).toBe(7);
    const expected = [...perToken.values()].reduce((n, k) => n + Math.min(5, k), 0);
    expect(synthetic.current).toMatchObject({ records: expected, clients: perToken.size });
  });
});
