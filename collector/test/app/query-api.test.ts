/**
 * The query API on a real embedded store with known data: exact counts, percentiles within 1 % of the
 * exact ones, suppression of small cells, token scoping, and the rollup agreeing with the raw table
 * (its percentiles come from log-scale buckets: within their bound plus t-digest's 1 %).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HandshakeRecord } from '@tlsrum/shared';
import { DIMENSION_NAMES, DIMENSIONS, FILTERS, VALUE_FILTERS } from '@tlsrum/shared/query';
import { DIMENSION_SQL } from '../../src/query/dimensions';
import { generateDemoData } from '../../src/demo/generate';
import { MAX_RELATIVE_ERROR } from '../../src/query/histogram';
import { ROLLUP_CLIENTS_CAP } from '../../src/query/sources';
import { insertRecords, makeRecords, removeDir, startApp, type TestApp } from '../support/helpers';

const ADMIN = 'admin-token-for-query-tests';
const MIN_CLIENTS = 10;
const HOUR = 3600_000;
let t: TestApp;
/** Two hours ago, at the start of an hour: every known row falls in one hour bucket. */
const base = Math.floor(Date.now() / HOUR) * HOUR - 2 * HOUR;

/** Exact quantile, linear interpolation (the definition t-digest approximates). */
function exactQuantile(sorted: number[], q: number): number {
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}
const within1pct = (got: number, want: number) => expect(Math.abs(got - want) / want).toBeLessThanOrEqual(0.01);
/** Rollup (buckets) against raw (t-digest): each is off from exact by its own bound. */
const withinBothBounds = (got: number, want: number) =>
  expect(Math.abs(got - want) / want).toBeLessThanOrEqual(MAX_RELATIVE_ERROR + 0.01);

/**
 * Rows straight into the store (the ingest path has its own tests); the rollup view fills as they land.
 * The data are shaped for the arithmetic under test, not for realism: they count as plausible.
 */
const insert = (records: HandshakeRecord[], country = 'DE') =>
  insertRecords(t.app, records, { country, isRegisteredSite: (h) => t.app.sites.has(h) });

const get = (url: string, token?: string) =>
  t.app.inject({ url, headers: token ? { authorization: `Bearer ${token}` } : {} });
const range = `from=${base - HOUR}&to=${base + 2 * HOUR}`;

// Known data set:
// - TLS 1.3 / 1rtt / DE / chrome: 1000 records from 100 clients, tls = 10.0 … 109.9 ms (0.1 ms steps, shuffled)
// - TLS 1.2 / full-2rtt / FR / firefox: 400 records from 40 clients, tls = 2 × 50 + i % 97
// - h3 / 1rtt / US / chrome: 30 records from 5 clients (below the threshold: suppressed)
const tls13 = Array.from({ length: 1000 }, (_, i) => 10 + ((i * 37) % 1000) / 10);
const tls12 = Array.from({ length: 400 }, (_, i) => 100 + (i % 97));
let siteToken = '';
let otherToken = '';

beforeAll(async () => {
  // Exact arithmetic on data with many records per client: without the per-client cap (flood.test.ts tests it).
  t = await startApp({
    ADMIN_TOKEN: ADMIN,
    MIN_CLIENTS_PER_CELL: String(MIN_CLIENTS),
    CLIENT_RECORDS_PER_CELL_DAY: '0',
  });
  for (const hostname of ['a.example.com', 'b.example.com']) {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/sites',
      payload: { hostname },
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    if (hostname === 'a.example.com') siteToken = res.json().readToken;
    else otherToken = res.json().readToken;
  }
  const at = (i: number) => base + (i % 3000) * 1000;
  await insert(
    makeRecords(
      1000,
      {
        site: 'a.example.com',
        tlsVersion: '1.3',
        protocol: 'h2',
        handshakeClass: '1rtt',
        resumed: false,
        resumedSource: 'observed',
        browser: 'chrome',
      },
      100,
    ).map((r, i) => ({ ...r, ts: at(i), tls: tls13[i]!, connect: tls13[i]! + 20 })),
    'DE',
  );
  await insert(
    makeRecords(
      400,
      {
        site: 'b.example.com',
        tlsVersion: '1.2',
        protocol: 'h2',
        handshakeClass: 'full-2rtt',
        resumed: false,
        resumedSource: 'inferred',
        browser: 'firefox',
      },
      40,
    ).map((r, i) => ({
      ...r,
      ts: at(i),
      tls: tls12[i]!,
      connect: tls12[i]! + 50,
      clientToken: `fr-client-${i % 40}-xx`,
    })),
    'FR',
  );
  await insert(
    makeRecords(
      30,
      {
        site: 'a.example.com',
        tlsVersion: '1.3',
        protocol: 'h3',
        transport: 'quic',
        handshakeClass: '1rtt',
        resumed: true,
        browser: 'chrome',
      },
      5,
    ).map((r, i) => ({ ...r, ts: at(i), tls: 5, clientToken: `us-client-${i % 5}-xx` })),
    'US',
  );
}, 60_000);
afterAll(async () => {
  await t.close();
  removeDir(t.dataDir);
});

describe('GET /v1/compare', () => {
  it('counts records exactly and gives percentiles within 1 % of exact', async () => {
    const res = await get(`/v1/compare?${range}&dimensions=tlsVersion,handshakeClass&table=raw`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ table: 'raw', site: null, minClients: MIN_CLIENTS, truncated: false });
    const byKey = Object.fromEntries(
      body.cells.map((c: { key: Record<string, string> }) => [`${c.key.tlsVersion}/${c.key.handshakeClass}`, c]),
    );
    const a = byKey['1.3/1rtt'];
    // The h3 rows are TLS 1.3 / 1rtt too: 1030 records, 105 clients, so the cell is shown.
    expect(a.records).toBe(1030);
    expect(a.clients).toBe(105);
    const b = byKey['1.2/full-2rtt'];
    expect(b.records).toBe(400);
    expect(b.clients).toBe(40);
    const sorted = [...tls12].sort((x, y) => x - y);
    within1pct(b.tls.p50, exactQuantile(sorted, 0.5));
    within1pct(b.tls.p75, exactQuantile(sorted, 0.75));
    within1pct(b.tls.p95, exactQuantile(sorted, 0.95));
    within1pct(b.connect.p95, exactQuantile(sorted, 0.95) + 50);
    expect(b.mix.handshakeClass).toEqual({ 'full-2rtt': 1, '1rtt': 0, '0rtt': 0, unknown: 0 });
    expect(b.evidence).toEqual({ evidenced: 0, inferred: 1 });
  });

  it('suppresses cells with fewer distinct clients than the threshold, with no numbers', async () => {
    const body = (await get(`/v1/compare?${range}&dimensions=protocol,country&table=raw`)).json();
    const h3 = body.cells.find((c: { key: Record<string, string> }) => c.key.protocol === 'h3');
    expect(h3).toEqual({ key: { protocol: 'h3', country: 'US' }, suppressed: true });
    const de = body.cells.find((c: { key: Record<string, string> }) => c.key.country === 'DE');
    expect(de.records).toBe(1000);
    const sorted = [...tls13].sort((x, y) => x - y);
    within1pct(de.tls.p50, exactQuantile(sorted, 0.5));
    within1pct(de.tls.p95, exactQuantile(sorted, 0.95));
  });

  it('filters by browser, country and source', async () => {
    const ff = (await get(`/v1/compare?${range}&dimensions=browser&browser=firefox&table=raw`)).json();
    expect(ff.cells).toHaveLength(1);
    expect(ff.cells[0]).toMatchObject({ key: { browser: 'firefox' }, records: 400 });
    const de = (await get(`/v1/compare?${range}&dimensions=country&country=DE&table=raw`)).json();
    expect(de.cells.map((c: { key: { country: string } }) => c.key.country)).toEqual(['DE']);
    const synthetic = (await get(`/v1/compare?${range}&source=synthetic&table=raw`)).json();
    expect(synthetic.cells).toEqual([]);
  });

  it('refuses dimensions outside the whitelist and bad ranges', async () => {
    const bad = await get(`/v1/compare?${range}&dimensions=tlsVersion,clientToken`);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toContain('querystring/dimensions');
    expect((await get(`/v1/compare?dimensions=country);DROP TABLE handshakes;--`)).statusCode).toBe(400);
    expect((await get(`/v1/compare?from=${base}&to=${base}`)).statusCode).toBe(400);
    expect((await get(`/v1/compare?country=de`)).statusCode).toBe(400);
  });

  it('a refused value is quoted back with what the parameter accepts, in words before any pattern', async () => {
    const message = async (query: string, within = range) => {
      const res = await get(`/v1/compare?${within}&${query}`);
      expect(res.statusCode, query).toBe(400);
      return String(res.json().message);
    };
    const names = `one to 3 of ${DIMENSION_NAMES.join(', ')}, separated by commas`;
    expect(await message('dimensions=tlsVersion,clientToken')).toBe(
      `querystring/dimensions: "clientToken" is not a dimension; give ${names}`,
    );
    expect(await message('dimensions=stack,mode,country,browser')).toBe(
      `querystring/dimensions: 4 dimensions given, at most 3; give ${names}`,
    );
    expect(await message('dimensions=stack,,mode')).toBe(
      `querystring/dimensions: "stack,,mode" has an empty name; give ${names}`,
    );
    expect(await message('dimensions=stack&browser=netscape')).toBe(
      `querystring/browser: "netscape" is not one of ${DIMENSIONS.browser.values!.join(', ')}`,
    );
    expect(await message('dimensions=stack&site=Not_A_Host')).toMatch(
      /^querystring\/site: "Not_A_Host" is not a hostname: lower-case letters/,
    );
    // An open value: the catalogue's description of the filter, then the exact form.
    const group = await message('dimensions=stack&group=%3Cscript%3E');
    expect(group).toBe(
      `querystring/group: "<script>" is not accepted here. ${FILTERS.group.description} Exact form: ${DIMENSIONS.group.pattern}`,
    );
    // A long value is shortened, never repeated whole.
    expect((await message(`dimensions=stack&cipher=${'x'.repeat(500)}`)).length).toBeLessThan(400);
    expect(await message(`from=abc&to=${base}`, 'dimensions=stack')).toBe(
      'querystring/from: "abc" is not a whole number',
    );
    expect(await message(`from=0&to=${base}`, 'dimensions=stack')).toMatch(
      /^querystring\/from must be >= \d+ \(2020-01-01T00:00:00\.000Z, in epoch milliseconds\)$/,
    );
  });
});

describe('access', () => {
  it('without a token: every site together; asking for one site needs its token', async () => {
    const all = (await get(`/v1/compare?${range}&dimensions=source&table=raw`)).json();
    expect(all.cells[0].records).toBe(1430);
    expect((await get(`/v1/compare?${range}&site=a.example.com`)).statusCode).toBe(401);
  });

  it("a read token sees its own site only, and no other site's", async () => {
    const own = await get(`/v1/compare?${range}&dimensions=source&table=raw`, siteToken);
    expect(own.json()).toMatchObject({ site: 'a.example.com', cells: [{ records: 1030 }] });
    expect(own.headers.vary).toContain('authorization');
    expect(
      (await get(`/v1/compare?${range}&site=a.example.com&dimensions=source&table=raw`, siteToken)).json().cells[0]
        .records,
    ).toBe(1030);
    expect((await get(`/v1/compare?${range}&site=b.example.com`, siteToken)).statusCode).toBe(403);
    expect(
      (await get(`/v1/map?${range}&table=raw`, otherToken))
        .json()
        .cells.map((c: { key: { country: string } }) => c.key.country),
    ).toEqual(['FR']);
    expect((await get(`/v1/compare?${range}`, 'tlsrum_rt_not-a-real-token-at-all-000000000000000')).statusCode).toBe(
      401,
    );
  });

  it('the admin token reads any site; re-registering a site revokes its old token', async () => {
    expect(
      (await get(`/v1/compare?${range}&site=b.example.com&dimensions=source&table=raw`, ADMIN)).json().cells[0].records,
    ).toBe(400);
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/sites',
      payload: { hostname: 'b.example.com' },
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    expect((await get(`/v1/compare?${range}`, otherToken)).statusCode).toBe(401);
    expect((await get(`/v1/compare?${range}`, res.json().readToken)).statusCode).toBe(200);
  });
});

describe('timeseries, map, phases', () => {
  it('buckets by hour with exact counts', async () => {
    const body = (await get(`/v1/timeseries?${range}&interval=hour&table=raw`)).json();
    const total = body.cells.reduce((s: number, c: { records: number }) => s + c.records, 0);
    expect(total).toBe(1430);
    for (const c of body.cells) expect(c.t % HOUR).toBe(0);
  });

  it('answers per country with the protocol mix', async () => {
    const body = (await get(`/v1/map?${range}&table=raw`)).json();
    const de = body.cells.find((c: { key: { country: string } }) => c.key.country === 'DE');
    expect(de.mix.protocol.h2).toBe(1);
    expect(body.cells.find((c: { key: { country: string } }) => c.key.country === 'US')).toEqual({
      key: { country: 'US' },
      suppressed: true,
    });
  });

  it('breaks connection set-up into phases', async () => {
    const body = (await get(`/v1/phases?${range}&dimensions=tlsVersion&table=raw`)).json();
    const c = body.cells.find((x: { key: { tlsVersion: string } }) => x.key.tlsVersion === '1.2');
    expect(Object.keys(c)).toEqual(expect.arrayContaining(['dns', 'tcp', 'tls', 'connect', 'ttfb']));
    within1pct(
      c.connect.p50,
      exactQuantile(
        [...tls12].sort((x, y) => x - y),
        0.5,
      ) + 50,
    );
  });
});

type Path = readonly [path: string, token: string, read: 'rollup' | 'raw'];
type RawCell = {
  key: unknown;
  t?: number;
  records?: number;
  clients?: number;
  tls?: { p95: number };
  connect?: { p95: number };
  suppressed?: boolean;
  mix?: unknown;
};

/**
 * Asks each path for [from, to) (auto: the rollup where a cut holds it), then the raw table for the range
 * the answer covers (widened to whole `unit`s), and compares them cell by cell: the same cells and
 * suppression, exact counts and mixes, clients up to the rollup's cap, p95 within both bounds. Returns
 * how many cells' percentiles were compared and how many client counts were at the cap.
 */
async function agreeWithRaw(paths: readonly Path[], from: number, to: number, unit: number) {
  let total = 0;
  let capped = 0;
  for (const [path, token, read] of paths) {
    const and = path.includes('?') ? '&' : '?';
    const rollup = (await get(`${path}${and}from=${from}&to=${to}`, token)).json();
    expect(rollup.table, path).toBe(read);
    expect(rollup.from % unit).toBe(0);
    expect(rollup.to % unit).toBe(0);
    expect(rollup.from).toBeLessThanOrEqual(from);
    expect(rollup.to).toBeGreaterThanOrEqual(to);
    const raw = (await get(`${path}${and}from=${rollup.from}&to=${rollup.to}&table=raw`, token)).json();
    expect(raw.table).toBe('raw');
    expect(rollup.cells.length, path).toBe(raw.cells.length);
    let compared = 0; // cells whose percentiles are compared
    raw.cells.forEach((r: RawCell, i: number) => {
      const o = rollup.cells[i];
      expect(o.key).toEqual(r.key);
      expect(o.t).toEqual(r.t);
      expect(Boolean(o.suppressed)).toBe(Boolean(r.suppressed));
      if (r.suppressed) return;
      expect(o.records).toBe(r.records);
      expect(o.mix).toEqual(r.mix);
      if (read === 'raw' || r.clients! < ROLLUP_CLIENTS_CAP) {
        expect(o.clients).toBe(r.clients);
        expect(o.clientsCapped).toBeUndefined();
      } else {
        // The rollup counts distinct clients up to the cap and says so.
        expect(o).toMatchObject({ clients: ROLLUP_CLIENTS_CAP, clientsCapped: true });
        capped++;
      }
      if (r.records! < 1000) return; // t-digest error bounds hold for cells of some size
      compared++;
      const close = read === 'raw' ? within1pct : withinBothBounds;
      close(o.tls.p95, r.tls!.p95);
      close(o.connect.p95, r.connect!.p95);
    });
    expect(raw.cells.filter((c: { suppressed?: boolean }) => !c.suppressed).length, path).toBeGreaterThan(0);
    total += compared;
  }
  return { total, capped };
}

describe('rollups', () => {
  it('agree with the raw table: exact counts, same suppression, clients up to the cap, p95 within both bounds', async () => {
    // Ten days of generated data besides the known rows.
    await generateDemoData(t.app.store.ingest, { records: 120_000, days: 10, end: base, seed: 7 });
    const paths: Path[] = [
      // every site: the day cuts (by the stack columns, by country)
      ['/v1/compare?dimensions=stack,mode', '', 'rollup'],
      ['/v1/map', '', 'rollup'],
      ['/v1/timeseries?interval=day&dimensions=stack', '', 'rollup'],
      // one site: its own cuts
      ['/v1/compare?dimensions=stack,mode&site=a.example.com', ADMIN, 'rollup'],
      ['/v1/map?site=a.example.com', ADMIN, 'rollup'],
      // filters, country with another dimension, hourly buckets: their own cuts (migration 0011)
      ['/v1/compare?dimensions=stack,mode&browser=chrome', '', 'rollup'],
      ['/v1/compare?dimensions=stack&source=rum', '', 'rollup'],
      ['/v1/map?browser=firefox', '', 'rollup'],
      ['/v1/compare?dimensions=country,stack', '', 'rollup'],
      ['/v1/compare?dimensions=mode&country=DE', '', 'rollup'],
      ['/v1/timeseries?interval=hour&dimensions=stack', '', 'rollup'],
      ['/v1/timeseries?interval=hour', '', 'rollup'],
      // an hourly series with a browser filter and the evidence: the hourly grain's cuts (migration 0013)
      ['/v1/timeseries?interval=hour&browser=chrome', '', 'rollup'],
      ['/v1/compare?dimensions=versionEvidence', '', 'rollup'],
      // country with a browser, source or evidence column, and their cells' mix columns: the country cuts (0016)
      ['/v1/compare?dimensions=country,browser', '', 'rollup'],
      ['/v1/compare?dimensions=country,source', '', 'rollup'],
      ['/v1/compare?dimensions=country,evidence', '', 'rollup'],
      ['/v1/compare?dimensions=country,cryptoSource&site=a.example.com', ADMIN, 'rollup'],
      ['/v1/map?evidence=measured', '', 'rollup'],
      ['/v1/map?source=rum', '', 'rollup'],
      // the evidence or the crypto facts' source without country, and their cells' mix columns: the evidence cuts (0017)
      ['/v1/compare?dimensions=evidence', '', 'rollup'],
      ['/v1/compare?dimensions=stack,mode&evidence=measured', '', 'rollup'],
      ['/v1/timeseries?interval=day&dimensions=stack&evidence=measured', '', 'rollup'],
      ['/v1/compare?dimensions=cryptoSource&site=a.example.com', ADMIN, 'rollup'],
      // country with the key-exchange group, and their cells' mix columns: the country and group cuts (0018)
      ['/v1/map?pq=hybrid', '', 'rollup'],
      ['/v1/compare?dimensions=country,group&site=a.example.com', ADMIN, 'rollup'],
      // an hourly series by country with a browser filter: no cut has it, the raw table, and the answer says so
      ['/v1/timeseries?interval=hour&dimensions=country&browser=chrome', '', 'raw'],
    ];
    // A range of a week or more: whole days.
    const { total, capped } = await agreeWithRaw(paths, base - 10 * 86_400_000, base + HOUR, 86_400_000);
    expect(total).toBeGreaterThan(10);
    expect(capped).toBeGreaterThan(0);
  }, 300_000);

  it('agree with the raw table over ranges of whole hours (the hourly grain), with the same bounds', async () => {
    // The generated days of the test before; 41 hours ending in the current hour, given to the minute (the
    // answer widens them to whole hours), never whole days.
    const from = base - 40 * HOUR + 17 * 60_000;
    const to = base + HOUR - 5 * 60_000;
    const paths: Path[] = [
      ['/v1/compare?dimensions=stack,mode', '', 'rollup'],
      ['/v1/phases?dimensions=stack,mode', '', 'rollup'],
      ['/v1/map', '', 'rollup'],
      ['/v1/timeseries?dimensions=stack', '', 'rollup'],
      ['/v1/timeseries', '', 'rollup'],
      ['/v1/timeseries?interval=day&dimensions=stack', '', 'rollup'],
      ['/v1/compare?dimensions=stack,mode&site=a.example.com', ADMIN, 'rollup'],
      ['/v1/map?site=a.example.com', ADMIN, 'rollup'],
      ['/v1/compare?dimensions=stack,mode&browser=chrome', '', 'rollup'],
      ['/v1/compare?dimensions=versionEvidence', '', 'rollup'],
      ['/v1/compare?dimensions=browser,cryptoSource', '', 'rollup'],
      ['/v1/compare?dimensions=mode&country=DE', '', 'rollup'],
      // country with a browser filter: no hourly cut holds both
      ['/v1/map?browser=chrome', '', 'raw'],
    ];
    const { total } = await agreeWithRaw(paths, from, to, HOUR);
    expect(total).toBeGreaterThan(10);
  }, 300_000);

  it('suppresses a small cell in the daily rollup as in the raw table', async () => {
    // Site a's 5 US clients (h3) of the known rows: below the threshold in both, over a week or more.
    const q = `/v1/map?site=a.example.com&from=${base - 7 * 86_400_000}&to=${base + HOUR}`;
    const rollup = (await get(q, ADMIN)).json();
    expect(rollup.table).toBe('rollup');
    const raw = (await get(`/v1/map?site=a.example.com&from=${rollup.from}&to=${rollup.to}&table=raw`, ADMIN)).json();
    const us = (b: { cells: { key: { country: string } }[] }) => b.cells.find((c) => c.key.country === 'US');
    expect(us(rollup)).toEqual({ key: { country: 'US' }, suppressed: true });
    expect(us(raw)).toEqual({ key: { country: 'US' }, suppressed: true });
  });

  it('suppresses exactly below the threshold in the rollup: threshold − 1 clients hidden, threshold shown', async () => {
    for (const [country, clients] of [
      ['NL', MIN_CLIENTS - 1],
      ['BE', MIN_CLIENTS],
    ] as const) {
      await insert(
        makeRecords(
          50,
          {
            site: 'a.example.com',
            tlsVersion: '1.3',
            protocol: 'h2',
            handshakeClass: '1rtt',
            resumed: false,
            browser: 'chrome',
          },
          clients,
        ).map((r, i) => ({ ...r, ts: base + i * 1000, clientToken: `${country}-client-${i % clients}-xx` })),
        country,
      );
    }
    const q = `/v1/map?site=a.example.com&from=${base - 7 * 86_400_000}&to=${base + HOUR}`;
    for (const table of ['rollup', 'raw']) {
      const body = (await get(`${q}&table=${table}`, ADMIN)).json();
      expect(body.table).toBe(table);
      const cell = (c: string) => body.cells.find((x: { key: { country: string } }) => x.key.country === c);
      expect(cell('NL')).toEqual({ key: { country: 'NL' }, suppressed: true });
      expect(cell('BE')).toMatchObject({ key: { country: 'BE' }, records: 50, clients: MIN_CLIENTS });
      expect(cell('BE').clientsCapped).toBeUndefined();
    }
  });
});

describe('query catalogue', () => {
  const DAY = 24 * HOUR;
  const days = `from=${Math.floor(base / DAY) * DAY - 7 * DAY}&to=${Math.ceil((base + 2 * HOUR) / DAY) * DAY}`;

  it.each(DIMENSION_NAMES)('groups by %s in both tables, into catalogued values only', async (d) => {
    const { values } = DIMENSIONS[d];
    for (const table of ['raw', 'rollup'] as const) {
      const res = await get(`/v1/compare?${days}&dimensions=${d}&table=${table}`);
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json();
      // A dimension the rollup does not hold is read from the raw table.
      expect(body.table).toBe(table === 'rollup' && DIMENSION_SQL[d].rollup ? 'rollup' : 'raw');
      expect(body.cells.length).toBeGreaterThan(0);
      for (const c of body.cells)
        expect(values === null || (values as readonly string[]).includes(c.key[d]), `${d} = ${c.key[d]}`).toBe(true);
    }
  });

  it.each(VALUE_FILTERS)('filters by %s in both tables, with the same counts', async (f) => {
    const d = FILTERS[f].dimension;
    const all = (await get(`/v1/compare?${days}&dimensions=${d}&table=raw`)).json();
    const shown = all.cells.filter((c: { suppressed?: boolean }) => !c.suppressed);
    expect(shown.length).toBeGreaterThan(0);
    // The three largest values are enough to show the filter's column in each table (each costs two queries).
    shown.sort((a: { records: number }, b: { records: number }) => b.records - a.records);
    for (const cell of shown.slice(0, 3)) {
      for (const table of ['raw', 'rollup'] as const) {
        const one = (
          await get(`/v1/compare?${days}&dimensions=${d}&${f}=${encodeURIComponent(cell.key[d])}&table=${table}`)
        ).json();
        expect(one.cells.map((c: { key: Record<string, string>; records: number }) => [c.key[d], c.records])).toEqual([
          [cell.key[d], cell.records],
        ]);
      }
    }
  });
});

describe('documentation and dashboard', () => {
  it('serves the OpenAPI document with every query route', async () => {
    const doc = (await get('/docs/json')).json();
    for (const p of ['/v1/compare', '/v1/timeseries', '/v1/map', '/v1/phases', '/v1/sites', '/v1/handshakes'])
      expect(doc.paths[p]).toBeDefined();
    expect(doc.paths['/v1/compare'].get.parameters.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(['from', 'to', 'site', 'source', 'browser', 'country', 'dimensions']),
    );
    expect((await get('/docs')).statusCode).toBeLessThan(400);
  });

  it('documents the what-if and alert answers and every catalogue filter of the what-if', async () => {
    const doc = (await get('/docs/json')).json();
    const answer = (path: string) => doc.paths[path].get.responses['200'].content['application/json'].schema;
    expect(Object.keys(answer('/v1/whatif').properties)).toEqual(
      expect.arrayContaining(['overall', 'regions', 'assumptions']),
    );
    expect(Object.keys(answer('/v1/alerts').properties)).toEqual(['evaluatedAt', 'thresholds', 'alerts']);
    expect(doc.paths['/v1/whatif'].get.parameters.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(Object.keys(FILTERS)),
    );
  });

  it('answers / with the dashboard (or how to build it)', async () => {
    const res = await get('/');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
  });
});
