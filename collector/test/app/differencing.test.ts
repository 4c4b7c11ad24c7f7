/**
 * No differencing: no answer of any read route lets a suppressed value be derived from the other values
 * of the same answer. The data hold cells under MIN_CLIENTS_PER_CELL (French h3 connections of
 * a.example: 7 records, 4 clients; all of b.example: 13 records, 2 clients) beside visible ones whose
 * counts are multiples of 10 and 3 (120 records / 12 clients, 150 / 15). Every route is asked, with and
 * without a token, over the raw table and the rollup, with every dimension; from each answer the record
 * counts and the client counts are collected (separately), and no signed sum of them (a − b − c + …)
 * may equal a suppressed count: total − visible cells, one breakdown − another, all fail that. A cell's
 * mix shares count too: share × records is the records of a sub-group (mix.tlsVersion['1.2'] × records
 * once gave a hidden 2-client cell), so those products join the record counts.
 *
 * What comparing *different* answers can still reveal is documented in docs/integrity.md.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generate, insertRows } from '../support/generate';
import { removeDir, startApp, type TestApp } from '../support/helpers';
import { DIMENSION_NAMES } from '@tlsrum/shared/query';

const ADMIN = 'admin-token-for-differencing';
const MIN_CLIENTS = 10;
const HOUR = 3_600_000;
// All data inside one hour (and one day): time buckets add no partial counts.
const NOW = Math.floor(Date.now() / HOUR) * HOUR - HOUR;
const FROM = NOW - HOUR + 60_000;

/** Counts of the suppressed cells: records and distinct clients. */
const SUPPRESSED_RECORDS = [7, 13];
const SUPPRESSED_CLIENTS = [4, 2];

const traffic = { from: FROM, to: NOW - 60_000, rtt: 40, fullTls: 80, resumedTls: 40, jitter: 0, dnsShare: 0 };

/** Every signed sum ±a ± b ± … of the numbers that lies within [0, limit]. */
function signedSums(numbers: number[], limit: number): Set<number> {
  let reach = new Set([0]);
  for (const n of numbers) {
    const next = new Set(reach);
    for (const s of reach) for (const v of [s + n, s - n]) if (Math.abs(v) <= 10_000) next.add(v);
    reach = next;
  }
  return new Set([...reach].filter((v) => v >= 0 && v <= limit));
}

/**
 * Record-like and client counts anywhere in an answer, by key name; and of every cell with a mix, each
 * share times the cell's records (the records of that sub-group, as anyone can compute them).
 */
function countsOf(answer: unknown): { records: number[]; clients: number[] } {
  const records: number[] = [];
  const clients: number[] = [];
  const walk = (v: unknown, key: string, parent: string) => {
    if (Array.isArray(v)) v.forEach((x) => walk(x, key, parent));
    else if (v && typeof v === 'object') {
      const cell = v as { records?: number; mix?: Record<string, Record<string, number>> };
      if (typeof cell.records === 'number' && cell.mix) {
        for (const shares of Object.values(cell.mix))
          for (const share of Object.values(shares)) records.push(Math.round(share * cell.records));
      }
      for (const [k, x] of Object.entries(v)) if (k !== 'mix') walk(x, k, key);
    } else if (typeof v === 'number') {
      if (key === 'records' || key === 'connections' || parent === 'samples') records.push(v);
      else if (key === 'clients') clients.push(v);
    }
  };
  walk(answer, '', '');
  return { records, clients };
}

describe('no answer lets a suppressed value be derived', () => {
  let t: TestApp;
  let readTokenA = '';
  const answers: { url: string; token?: string; body: unknown }[] = [];

  beforeAll(async () => {
    // Exact arithmetic on data with many records per client: without the per-client cap (flood.test.ts tests it).
    // The k-sites rule off: this test is about the clients threshold (no-site-reproduced.test.ts tests the other).
    t = await startApp({
      ADMIN_TOKEN: ADMIN,
      MIN_CLIENTS_PER_CELL: String(MIN_CLIENTS),
      MIN_SITES_PER_CELL: '1',
      ALERT_INTERVAL_MS: '0',
      ALERT_WINDOWS: 'hour',
      CLIENT_RECORDS_PER_CELL_DAY: '0',
    });
    const rows = [
      // a.example, Germany: TLS 1.2 full (12 clients × 10) and TLS 1.3 resumed (15 × 10), h2.
      ...generate({
        ...traffic,
        site: 'a.example',
        country: 'DE',
        records: 120,
        clients: 12,
        resumedShare: 0,
        tls13Share: 0,
        h3Share: 0,
        seed: 1,
      }),
      ...generate({
        ...traffic,
        site: 'a.example',
        country: 'DE',
        records: 150,
        clients: 15,
        resumedShare: 1,
        tls13Share: 1,
        h3Share: 0,
        seed: 2,
      }),
      // a.example, France: a few h3 users — suppressed wherever they form a cell of their own.
      ...generate({
        ...traffic,
        site: 'a.example',
        country: 'FR',
        records: 7,
        clients: 4,
        resumedShare: 1,
        tls13Share: 1,
        h3Share: 1,
        seed: 3,
      }),
      // b.example: a small site, TLS 1.2 resumed (a cell no one else has).
      ...generate({
        ...traffic,
        site: 'b.example',
        country: 'DE',
        records: 13,
        clients: 2,
        resumedShare: 1,
        tls13Share: 0,
        h3Share: 0,
        seed: 4,
      }),
    ];
    await insertRows(t.app.store.ingest, rows);
    for (const hostname of ['a.example', 'b.example']) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/v1/sites',
        payload: { hostname },
        headers: { authorization: `Bearer ${ADMIN}` },
      });
      if (hostname === 'a.example') readTokenA = res.json().readToken;
    }
    await t.app.alerts.evaluate(NOW);

    const ranges = [
      `from=${FROM - HOUR}&to=${NOW + HOUR}&table=raw`,
      `from=${NOW - 14 * 24 * HOUR}&to=${NOW + HOUR}&table=rollup`,
    ];
    const dimensionSets: string[] = [
      ...DIMENSION_NAMES,
      'stack,mode',
      'country,stack',
      'tlsVersion,mode',
      'protocol,tlsVersion',
      'country,protocol,tlsVersion',
      // Country with a crypto column: every site together reads the country and crypto cuts over whole days.
      'country,certKey',
      'country,chainLength',
      'country,cipher',
      'country,signatureScheme',
    ];
    const scopes: { query: string; token?: string }[] = [
      { query: '' },
      { query: '&site=a.example', token: readTokenA },
      { query: '&site=b.example', token: ADMIN },
    ];
    const urls: { url: string; token?: string }[] = [];
    for (const s of scopes) {
      for (const r of ranges) {
        for (const d of dimensionSets) urls.push({ url: `/v1/compare?${r}${s.query}&dimensions=${d}`, token: s.token });
        for (const d of dimensionSets.filter((x) => !x.includes(',')))
          urls.push({ url: `/v1/timeseries?${r}${s.query}&dimensions=${d}`, token: s.token });
        urls.push({ url: `/v1/timeseries?${r}${s.query}`, token: s.token });
        for (const d of dimensionSets) urls.push({ url: `/v1/phases?${r}${s.query}&dimensions=${d}`, token: s.token });
        urls.push({ url: `/v1/map?${r}${s.query}`, token: s.token });
        urls.push({ url: `/v1/map?${r}${s.query}&cipher=unknown`, token: s.token });
        // A crypto or evidence column under a source filter (a site's view on its own pages): the source cuts.
        for (const d of ['certKey', 'group', 'cipher', 'versionEvidence'])
          urls.push({ url: `/v1/compare?${r}${s.query}&dimensions=${d}&source=rum`, token: s.token });
        // A crypto or evidence column under a filter on another one (the Cryptography panel under a filter): the pair cuts.
        for (const [d, f] of [
          ['certKey', 'pq=classical'],
          ['group', 'evidence=measured'],
          ['versionEvidence', 'cipher=unknown'],
          ['browser,cryptoSource', 'cipher=unknown'],
        ])
          urls.push({ url: `/v1/compare?${r}${s.query}&dimensions=${d}&${f}`, token: s.token });
      }
      urls.push({ url: `/v1/whatif?from=${FROM - HOUR}&to=${NOW + HOUR}${s.query}`, token: s.token });
      if (s.token) urls.push({ url: `/v1/alerts?${s.query.slice(1)}`, token: s.token });
    }
    urls.push(
      { url: `/v1/summary?from=${FROM - HOUR}&to=${NOW + HOUR}` },
      // Whole hours: read from the rollup.
      { url: `/v1/summary?from=${NOW - 2 * HOUR}&to=${NOW + HOUR}` },
      { url: '/v1/sites' },
      { url: '/v1/about' },
      { url: '/v1/alerts', token: ADMIN },
    );
    // Probe answers describe servers (no counts of users); asked so every read route is covered.
    urls.push(
      { url: '/v1/sites/a.example/probes', token: readTokenA },
      { url: '/v1/sites/a.example/probe-targets', token: readTokenA },
    );
    // The open dataset's list (empty here: no month of these data is over) and a file route (404 for it);
    // the files' own rule is tested in datasets-plan.test.ts and datasets.test.ts.
    urls.push({ url: '/v1/datasets' }, { url: '/v1/datasets/2021-01.csv' });
    for (const u of urls) {
      const res = await t.app.inject({ url: u.url, headers: u.token ? { authorization: `Bearer ${u.token}` } : {} });
      expect(res.statusCode, u.url).toBe(u.url.startsWith('/v1/datasets/') ? 404 : 200);
      answers.push({ ...u, body: res.json() });
    }
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    if (t) removeDir(t.dataDir);
  });

  it('asks every read route of the API', () => {
    const paths = Object.entries((t.app.swagger() as { paths: Record<string, Record<string, unknown>> }).paths)
      .filter(([path, ops]) => path.startsWith('/v1/') && 'get' in ops)
      .map(([path]) => path);
    const asked = answers.map((a) => a.url.split('?')[0]!);
    // OpenAPI writes path parameters as {name}.
    const matches = (path: string) => new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`);
    expect(paths.filter((p) => !asked.some((a) => matches(p).test(a)))).toEqual([]);
  });

  it('the data do hold suppressed cells, and answers show them as suppressed', () => {
    const suppressed = answers.filter((a) => JSON.stringify(a.body).includes('"suppressed":true'));
    expect(suppressed.map((a) => a.url.split('?')[0])).toEqual(
      expect.arrayContaining(['/v1/compare', '/v1/timeseries', '/v1/phases', '/v1/map', '/v1/whatif', '/v1/summary']),
    );
  });

  it('the rollup range answers from the rollups, country with a crypto column and the map under a cipher included', () => {
    const rollup = answers.filter((a) => a.url.includes('table=rollup') && !a.url.includes('&site='));
    const crypto = rollup.filter((a) =>
      /dimensions=country,(certKey|chainLength|cipher|signatureScheme)|^\/v1\/map.*cipher=/.test(a.url),
    );
    expect(crypto.length).toBe(9);
    for (const a of crypto) expect((a.body as { table: string }).table, a.url).toBe('rollup');
    expect(crypto.filter((a) => JSON.stringify(a.body).includes('"suppressed":true')).length).toBeGreaterThan(0);
  });

  it('a crypto or evidence column under a source filter answers from the rollups over the rollup range, for every reader', () => {
    const bySource = answers.filter((a) => a.url.includes('table=rollup') && a.url.includes('&source=rum'));
    expect(bySource.length).toBe(12);
    for (const a of bySource) expect((a.body as { table: string }).table, a.url).toBe('rollup');
    expect(bySource.filter((a) => JSON.stringify(a.body).includes('"suppressed":true')).length).toBeGreaterThan(0);
  });

  it('a crypto or evidence column under a filter on another one answers from the rollups over the rollup range, for every reader', () => {
    const paired = answers.filter(
      (a) =>
        a.url.startsWith('/v1/compare') &&
        a.url.includes('table=rollup') &&
        /&(pq=classical|evidence=measured|cipher=unknown)$/.test(a.url),
    );
    expect(paired.length).toBe(12);
    for (const a of paired) expect((a.body as { table: string }).table, a.url).toBe('rollup');
    expect(paired.filter((a) => JSON.stringify(a.body).includes('"cells":[{')).length).toBeGreaterThan(6);
  });

  it('the mixes do hold shares of cells that hide a suppressed sub-group (the walk over mixes is not vacuous)', () => {
    const mixed = answers.flatMap((a) => JSON.stringify(a.body).match(/"mix":\{/g) ?? []);
    expect(mixed.length).toBeGreaterThan(20);
  });

  it('a share whose group holds a suppressed sub-group is shown where none follows from it (the walk covers such shares)', () => {
    // Germany, every site: b.example's 13 resumed TLS 1.2 records are hidden; resumed as a whole (with a.example's
    // 150) is shown, TLS 1.2 and 1.3 are not (with resumed, either would give the 13).
    const byCountry = answers.filter(
      (a) => a.url.startsWith('/v1/compare?') && a.url.endsWith('&dimensions=country') && !a.url.includes('&site='),
    );
    expect(byCountry.length).toBe(2);
    for (const a of byCountry) {
      const de = (
        a.body as { cells: { key: { country: string }; mix?: Record<string, Record<string, number>> }[] }
      ).cells.find((c) => c.key.country === 'DE');
      expect(de?.mix?.mode?.resumed, a.url).toBeCloseTo(163 / 283, 3);
      expect(de?.mix?.tlsVersion?.['1.2'], a.url).toBeUndefined();
    }
  });

  it('no signed sum of an answer’s counts (mix shares × records included) equals a suppressed count', () => {
    const leaks: string[] = [];
    for (const a of answers) {
      const { records, clients } = countsOf(a.body);
      const r = signedSums(records, Math.max(...SUPPRESSED_RECORDS));
      const c = signedSums(clients, Math.max(...SUPPRESSED_CLIENTS));
      for (const s of SUPPRESSED_RECORDS)
        if (r.has(s)) leaks.push(`${a.url}: ${s} records from ${JSON.stringify(records)}`);
      for (const s of SUPPRESSED_CLIENTS)
        if (c.has(s)) leaks.push(`${a.url}: ${s} clients from ${JSON.stringify(clients)}`);
    }
    expect(leaks).toEqual([]);
  });

  it('the summary total counts shown cells only, and both breakdowns add up to it, from the raw table and the rollup alike', () => {
    type Summary = {
      table: string;
      records: number;
      byProtocol: Record<string, { records?: number; suppressed?: true }>;
      byTlsVersion: Record<string, { records?: number; suppressed?: true }>;
    };
    const summaries = answers.filter((a) => a.url.startsWith('/v1/summary')).map((a) => a.body as Summary);
    expect(summaries.map((s) => s.table)).toEqual(['raw', 'rollup']);
    for (const summary of summaries) {
      expect(summary.byProtocol.h3).toEqual({ suppressed: true });
      const sum = (cells: Record<string, { records?: number }>) =>
        Object.values(cells).reduce((s, c) => s + (c.records ?? 0), 0);
      expect(sum(summary.byProtocol)).toBe(summary.records);
      expect(sum(summary.byTlsVersion)).toBe(summary.records);
      expect(summary.records).toBe(120 + 150 + 13);
    }
    const counts = ({ records, byProtocol, byTlsVersion }: Summary) => ({ records, byProtocol, byTlsVersion });
    expect(counts(summaries[1]!)).toEqual(counts(summaries[0]!));
  });
});
