/**
 * The crypto lens's dimensions (group, pq, cipher, certKey, chainLength, signatureScheme) on a real embedded
 * store with known data: exact counts per value, the post-quantum classes, filters, suppression of a small
 * cell in both tables, and the crypto rollup (migration 0009) agreeing with the raw table.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VALUE_FILTERS } from '@tlsrum/shared/query';
import { CRYPTO_ROLLUP_COLUMNS, DIMENSION_SQL } from '../../src/query/dimensions';
import { MIGRATIONS_DIR } from '../../src/platform/store/migrate';
import { expectSameAsRaw, insertRecords, makeRecords, removeDir, startApp, type TestApp } from '../support/helpers';

const MIN_CLIENTS = 10;
const DAY = 86_400_000;
const HOUR = 3_600_000;
let t: TestApp;
/** Noon three days ago: whole days around it are in both tables. */
const at = Math.floor(Date.now() / DAY) * DAY - 3 * DAY + DAY / 2;
const days = `from=${at - DAY / 2 - 7 * DAY}&to=${at + DAY / 2}`;

const get = (url: string) => t.app.inject({ url });

/** Known cells: name → records, clients, fields, tls ms; from Germany unless said. */
const KNOWN = {
  hybridEc: {
    n: 300,
    clients: 30,
    tls: 40,
    f: {
      group: 'X25519MLKEM768',
      cipher: 'TLS_AES_128_GCM_SHA256',
      certKeyType: 'ecdsa',
      certKeyBits: 256,
      certChainLength: 2,
      signatureScheme: 'ecdsa_secp256r1_sha256',
    },
  },
  // Sent by a site's beacon (source "page"), the others by the extension ("rum").
  classicalRsa4096: {
    n: 200,
    clients: 20,
    tls: 90,
    source: 'page',
    f: {
      group: 'x25519',
      cipher: 'TLS_AES_256_GCM_SHA384',
      certKeyType: 'rsa',
      certKeyBits: 4096,
      certChainLength: 3,
      signatureScheme: 'rsa_pss_rsae_sha256',
    },
  },
  classicalRsa2048: {
    n: 150,
    clients: 15,
    tls: 60,
    country: 'FR',
    f: {
      group: 'secp256r1',
      cipher: 'TLS_CHACHA20_POLY1305_SHA256',
      certKeyType: 'rsa',
      certKeyBits: 2048,
      certChainLength: 2,
      signatureScheme: 'rsa_pss_rsae_sha256',
    },
  },
  // Below the threshold: suppressed in both tables.
  smallP384: {
    n: 40,
    clients: 4,
    tls: 55,
    f: {
      group: 'X25519MLKEM768',
      cipher: 'TLS_AES_128_GCM_SHA256',
      certKeyType: 'ecdsa',
      certKeyBits: 384,
      certChainLength: 1,
      signatureScheme: 'ecdsa_secp384r1_sha384',
    },
  },
  // Chromium without a probe: nothing known.
  unknown: { n: 100, clients: 10, tls: 50, f: {} },
} as const;

beforeAll(async () => {
  t = await startApp({ MIN_CLIENTS_PER_CELL: String(MIN_CLIENTS), CLIENT_RECORDS_PER_CELL_DAY: '0' });
  for (const [name, k] of Object.entries(KNOWN)) {
    await insertRecords(
      t.app,
      makeRecords(
        k.n,
        { ...k.f, browser: 'group' in k.f ? 'firefox' : 'chrome', ...('source' in k ? { source: k.source } : {}) },
        k.clients,
      ).map(({ group, cipher, signatureScheme, certChainLength, ...r }, i) => ({
        ...r,
        // The helper's record carries Firefox's fields: the unknown cell has none.
        ...('group' in k.f ? { group, cipher, signatureScheme, certChainLength } : {}),
        ts: at + i * 1000,
        tls: k.tls + (i % 7),
        clientToken: `${name}-client-${i % k.clients}-xx`,
      })),
      { country: 'country' in k ? k.country : 'DE' },
    );
  }
}, 60_000);
afterAll(async () => {
  await t.close();
  removeDir(t.dataDir);
});

type C = {
  key: Record<string, string>;
  records?: number;
  clients?: number;
  suppressed?: boolean;
  tls?: { p50: number; p75: number };
  mix?: Record<string, Record<string, number>>;
};
const cells = async (q: string): Promise<{ table: string; cells: C[] }> => {
  const res = await get(q);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
};
const byKey = (body: { cells: C[] }, d: string) =>
  Object.fromEntries(body.cells.map((c) => [c.key[d], c.suppressed ? 'suppressed' : c.records]));

/**
 * Each URL asked of both tables: the rollup answers it (not the raw table), with the raw table's cells (keys,
 * suppression, records, clients, mixes) and each shown cell's p50 within the histogram bound. The rollup's answers.
 */
async function sameAsRaw(urls: string[]): Promise<{ table: string; cells: C[] }[]> {
  const [raw, rollup] = await Promise.all(
    (['raw', 'rollup'] as const).map((table) => Promise.all(urls.map((u) => cells(`${u}&table=${table}`)))),
  );
  for (const [i, r] of rollup!.entries()) expectSameAsRaw(r, raw![i]!, urls[i]);
  return rollup!;
}

describe('crypto dimensions', () => {
  const expected: Record<string, Record<string, number | 'suppressed'>> = {
    group: { X25519MLKEM768: 340, x25519: 200, secp256r1: 150, unknown: 100 },
    pq: { hybrid: 340, classical: 350, unknown: 100 },
    cipher: {
      TLS_AES_128_GCM_SHA256: 340,
      TLS_AES_256_GCM_SHA384: 200,
      TLS_CHACHA20_POLY1305_SHA256: 150,
      unknown: 100,
    },
    certKey: { 'ECDSA-P256': 300, 'RSA-4096': 200, 'RSA-2048': 150, 'ECDSA-P384': 'suppressed', unknown: 100 },
    chainLength: { '1': 'suppressed', '2': 450, '3': 200, unknown: 100 },
    signatureScheme: {
      ecdsa_secp256r1_sha256: 300,
      rsa_pss_rsae_sha256: 350,
      ecdsa_secp384r1_sha384: 'suppressed',
      unknown: 100,
    },
  };

  it.each(Object.keys(expected))(
    '%s: exact counts per value, small cells suppressed with no numbers, in the raw table and the rollup',
    async (d) => {
      const mixes: Record<string, unknown> = {};
      for (const table of ['raw', 'rollup'] as const) {
        const body = await cells(`/v1/compare?${days}&dimensions=${d}&table=${table}`);
        mixes[table] = body.cells.map((c) => [c.key, c.mix]);
        expect(body.table).toBe(table);
        expect(byKey(body, d)).toEqual(expected[d]);
        for (const c of body.cells.filter((x) => x.suppressed))
          expect(Object.keys(c).sort()).toEqual(['key', 'suppressed']);
      }
      // Each cell's mixes, protected by its joint cells, are the same from either table.
      expect(mixes.rollup).toEqual(mixes.raw);
    },
  );

  it.each(Object.keys(expected))(
    '%s over hours that are not whole days, and by the hour: the same counts, suppression and mixes as the raw table',
    async (d) => {
      const hours = `from=${at - 6 * HOUR}&to=${at + 6 * HOUR}`;
      const got: Record<string, unknown> = {};
      for (const table of ['raw', 'rollup'] as const) {
        const body = await cells(`/v1/compare?${hours}&dimensions=${d}&table=${table}`);
        expect(body.table).toBe(table);
        expect(byKey(body, d), table).toEqual(expected[d]);
        const series = await cells(`/v1/timeseries?${hours}&interval=hour&dimensions=${d}&table=${table}`);
        expect(series.table).toBe(table);
        got[table] = [
          body.cells.map((c) => [c.key, c.mix]),
          series.cells.map((c) => [(c as { t?: number }).t, c.key, c.suppressed ?? false, c.records, c.mix]),
        ];
      }
      expect(got.rollup).toEqual(got.raw);
    },
  );

  it('the rollup agrees with the raw table on two crypto dimensions at once: records, clients, p50/p75 within the histogram bound', async () => {
    const rollup = await cells(`/v1/compare?${days}&dimensions=pq,certKey`);
    expect(rollup.table).toBe('rollup');
    const raw = await cells(`/v1/compare?${days}&dimensions=pq,certKey&table=raw`);
    expect(rollup.cells.map((c) => [c.key, c.suppressed ?? false, c.records, c.clients])).toEqual(
      raw.cells.map((c) => [c.key, c.suppressed ?? false, c.records, c.clients]),
    );
    const hybridEc = (b: { cells: C[] }) =>
      b.cells.find((c) => c.key.pq === 'hybrid' && c.key.certKey === 'ECDSA-P256')!;
    expect(hybridEc(raw)).toMatchObject({ records: 300, clients: 30 });
    for (const p of ['p50', 'p75'] as const)
      expect(Math.abs(hybridEc(rollup).tls![p] - hybridEc(raw).tls![p]) / hybridEc(raw).tls![p]).toBeLessThan(0.035);
    // TLS-phase medians in the order the data were made: RSA-4096 slowest, the hybrid ECDSA fastest.
    const tlsOf = (key: string) => raw.cells.find((c) => c.key.certKey === key)!.tls!.p50;
    expect(tlsOf('RSA-4096')).toBeGreaterThan(tlsOf('RSA-2048'));
    expect(tlsOf('RSA-2048')).toBeGreaterThan(tlsOf('ECDSA-P256'));
  });

  it.each([
    ['certKey', 'RSA-2048'],
    ['chainLength', '2'],
    ['cipher', 'TLS_AES_128_GCM_SHA256'],
    ['signatureScheme', 'rsa_pss_rsae_sha256'],
  ])(
    "%s with country, every site together: countries compared by it and the map under one value read the rollup, with the raw table's counts, suppression and mixes, p50 within the histogram bound",
    async (d, value) => {
      const [byCountry, map] = await sameAsRaw([
        `/v1/compare?${days}&dimensions=country,${d}`,
        `/v1/map?${days}&${d}=${encodeURIComponent(value)}`,
      ]);
      // Both countries are there, and the comparison has a suppressed cell (the check can fail).
      expect(new Set(byCountry!.cells.map((c) => c.key.country))).toEqual(new Set(['DE', 'FR']));
      expect(map!.cells.length).toBeGreaterThan(0);
      if (d !== 'cipher') expect(byCountry!.cells.some((c) => c.suppressed)).toBe(true);
    },
  );

  it.each(['group', 'pq', 'browser', 'source', 'versionEvidence', 'evidence', 'cryptoSource'])(
    "%s with country, every site together: countries compared by it (their handshake and every phase) and the map under each of its values (where it is a filter) read the rollup, with the raw table's counts, suppression and mixes, p50 within the histogram bound",
    async (d) => {
      const [byCountry] = await sameAsRaw([
        `/v1/compare?${days}&dimensions=country,${d}`,
        `/v1/phases?${days}&dimensions=country,${d}`,
      ]);
      expect(new Set(byCountry!.cells.map((c) => c.key.country))).toEqual(new Set(['DE', 'FR']));
      if (!(VALUE_FILTERS as readonly string[]).includes(d)) return;
      const values = [...new Set(byCountry!.cells.map((c) => c.key[d]!))];
      const maps = await sameAsRaw(values.map((v) => `/v1/map?${days}&${d}=${encodeURIComponent(v)}`));
      // Every value's map shows a country (the check can fail).
      expect(maps.every((m) => m.cells.some((c) => !c.suppressed))).toBe(true);
    },
  );

  it.each([...Object.keys(expected), 'versionEvidence'])(
    "%s under a source or a browser filter (a site's view on its own pages): read from the rollup over whole days, with the raw table's counts, suppression and mixes, p50 within the histogram bound",
    async (d) => {
      const filters = ['source=page', 'source=rum', 'browser=firefox', 'browser=chrome'];
      const got = await sameAsRaw(filters.map((f) => `/v1/compare?${days}&dimensions=${d}&${f}`));
      // Each filter's own records: the beacon's alone, the rest, Firefox's (every cell with crypto facts), Chrome's.
      const records = (b: { cells: C[] }) => b.cells.reduce((sum, c) => sum + (c.records ?? 0), 0);
      const [page, rum, firefox, chrome] = got.map(records);
      expect(page).toBe(200);
      expect(rum).toBeGreaterThan(500);
      expect(firefox).toBeGreaterThan(600);
      expect(chrome).toBe(100);
    },
  );

  it("the browser by the crypto facts' source under a country filter (the coverage line with a country picked on the map), and the crypto facts' source by country under a browser filter: read from the rollup over whole days, with the raw table's counts, suppression and mixes, p50 within the histogram bound", async () => {
    const [de, fr, firefoxDe, byCountry] = await sameAsRaw([
      `/v1/compare?${days}&dimensions=browser,cryptoSource&country=DE`,
      `/v1/compare?${days}&dimensions=browser,cryptoSource&country=FR`,
      `/v1/compare?${days}&dimensions=cryptoSource&country=DE&browser=firefox`,
      `/v1/compare?${days}&dimensions=country,cryptoSource&browser=firefox`,
    ]);
    const records = (b: { cells: C[] }) => b.cells.reduce((sum, c) => sum + (c.records ?? 0), 0);
    // Germany: every cell but France's; Firefox in Germany: all but the unknown (Chrome) cell.
    expect([de, fr, firefoxDe].map((b) => records(b!))).toEqual([640, 150, 540]);
    expect(new Set(de!.cells.map((c) => c.key.browser))).toEqual(new Set(['firefox', 'chrome']));
    expect(new Set(byCountry!.cells.map((c) => c.key.country))).toEqual(new Set(['DE', 'FR']));
  });

  it.each([...Object.keys(expected), 'versionEvidence', 'browser,cryptoSource'])(
    "%s under a filter on another crypto, signature or evidence column (the Cryptography panel under a filter): read from the rollup over whole days, with the raw table's counts, suppression and mixes, p50 within the histogram bound",
    async (d) => {
      const filters = [
        ['pq', 'hybrid'],
        ['group', 'x25519'],
        ['certKey', 'RSA-2048'],
        ['chainLength', '2'],
        ['cipher', 'TLS_AES_128_GCM_SHA256'],
        ['signatureScheme', 'rsa_pss_rsae_sha256'],
        ['evidence', 'measured'],
        ['evidence', 'derived'],
      ] as const;
      // The group and the post-quantum class are one column: neither filters the other.
      const column = (x: string) => (x === 'pq' ? 'group' : x);
      const asked = filters.filter(([f]) => !d.split(',').some((x) => column(x) === column(f)));
      const got = await sameAsRaw(
        asked.map(([f, v]) => `/v1/compare?${days}&dimensions=${d}&${f}=${encodeURIComponent(v)}`),
      );
      // The filters hold records and mixes, and where the small cell has a value of its own (its certificate
      // key, chain length, signature), some cells under them are suppressed: the check can fail.
      const shown = got.flatMap((b) => b.cells.filter((c) => !c.suppressed));
      expect(got.filter((b) => b.cells.some((c) => !c.suppressed)).length).toBeGreaterThan(asked.length / 2);
      expect(shown.some((c) => Object.values(c.mix!).some((m) => Object.keys(m).length > 0))).toBe(true);
      if (['certKey', 'chainLength', 'signatureScheme'].includes(d))
        expect(got.some((b) => b.cells.some((c) => c.suppressed))).toBe(true);
    },
  );

  it('filters by each crypto dimension in both tables, with the same counts; a bad value is a 400', async () => {
    const filters = [
      ['pq', 'hybrid', 'certKey', { 'ECDSA-P256': 300, 'ECDSA-P384': 'suppressed' }],
      ['group', 'x25519', 'chainLength', { '3': 200 }],
      ['certKey', 'RSA-2048', 'cipher', { TLS_CHACHA20_POLY1305_SHA256: 150 }],
      ['chainLength', '2', 'pq', { hybrid: 300, classical: 150 }],
      ['cipher', 'TLS_AES_256_GCM_SHA384', 'group', { x25519: 200 }],
      ['signatureScheme', 'rsa_pss_rsae_sha256', 'certKey', { 'RSA-4096': 200, 'RSA-2048': 150 }],
    ] as const;
    for (const [f, v, d, want] of filters) {
      for (const table of ['raw', 'rollup'] as const) {
        const body = await cells(`/v1/compare?${days}&dimensions=${d}&${f}=${encodeURIComponent(v)}&table=${table}`);
        expect(byKey(body, d), `${f}=${v} (${table})`).toEqual(want);
      }
    }
    for (const bad of ['pq=quantum', 'certKey=DSA-1024', 'chainLength=9', 'group=a%20b', 'dimensions=certKeys']) {
      expect((await get(`/v1/compare?${days}&${bad}`)).statusCode, bad).toBe(400);
    }
  });

  it('the post-quantum share over time: daily buckets from the rollup', async () => {
    const body = await cells(`/v1/timeseries?${days}&interval=day&dimensions=pq`);
    expect(body.table).toBe('rollup');
    const day = body.cells.filter((c: C & { t?: number }) => c.t === Math.floor(at / DAY) * DAY);
    expect(Object.fromEntries(day.map((c) => [c.key.pq, c.records]))).toEqual({
      hybrid: 340,
      classical: 350,
      unknown: 100,
    });
  });

  it("the crypto rollups' views store each dimension's raw expression under its column (one definition)", () => {
    const sql = readFileSync(`${MIGRATIONS_DIR}/0009_crypto.sql`, 'utf8');
    for (const [raw, column] of Object.values(CRYPTO_ROLLUP_COLUMNS)) expect(sql).toContain(`${raw} AS ${column},`);
    // 0015 the same, Nullable-typed expressions wrapped in assumeNotNull (their values are never NULL).
    const cuts = readFileSync(`${MIGRATIONS_DIR}/0015_crypto_cuts.sql`, 'utf8');
    for (const [raw, column] of Object.values(CRYPTO_ROLLUP_COLUMNS))
      expect(cuts.includes(`${raw} AS ${column},`) || cuts.includes(`assumeNotNull(${raw}) AS ${column},`)).toBe(true);
    // 0021 holds the signature scheme alone.
    expect(readFileSync(`${MIGRATIONS_DIR}/0021_signature_cuts.sql`, 'utf8')).toContain(
      `${DIMENSION_SQL.signatureScheme.raw} AS sigScheme,`,
    );
    // 0018 holds the group alone, with country.
    const [groupRaw, groupColumn] = CRYPTO_ROLLUP_COLUMNS.group;
    expect(readFileSync(`${MIGRATIONS_DIR}/0018_country_group_cuts.sql`, 'utf8')).toContain(
      `${groupRaw} AS ${groupColumn},`,
    );
    // 0028 holds each of the five by the hour, 0029 each but the group with country.
    const holds = (sql: string, [raw, column]: readonly [string, string]) =>
      sql.includes(`${raw} AS ${column},`) || sql.includes(`assumeNotNull(${raw}) AS ${column},`);
    const signature = [DIMENSION_SQL.signatureScheme.raw, 'sigScheme'] as const;
    const hourly = readFileSync(`${MIGRATIONS_DIR}/0028_hourly_crypto_cuts.sql`, 'utf8');
    for (const c of [...Object.values(CRYPTO_ROLLUP_COLUMNS), signature]) expect(holds(hourly, c), c[1]).toBe(true);
    const country = readFileSync(`${MIGRATIONS_DIR}/0029_country_crypto_cuts.sql`, 'utf8');
    const { group: _, ...others } = CRYPTO_ROLLUP_COLUMNS;
    for (const c of [...Object.values(others), signature]) expect(holds(country, c), c[1]).toBe(true);
    // 0036 holds each of the five, the evidence and the crypto facts' source, each with country alone.
    const pairs = readFileSync(`${MIGRATIONS_DIR}/0036_country_pairs.sql`, 'utf8');
    const evidence = [
      [DIMENSION_SQL.versionEvidence.raw, 'versionEvidence'],
      [DIMENSION_SQL.cryptoSource.raw, 'cryptoSource'],
    ] as const;
    for (const c of [...Object.values(CRYPTO_ROLLUP_COLUMNS), signature, ...evidence])
      expect(holds(pairs, c), c[1]).toBe(true);
  });
});
