/**
 * No tokenless answer reproduces a registered site's own figures, whatever filter or dimension. The data
 * make every site distinctive somewhere: a.example alone has an RSA-4096 certificate (Chromium records
 * carry it from the site's probe), HTTP/3 and a Firefox signature scheme; c.example alone has visitors in
 * New Zealand and a 4-certificate chain; b.example shares everything. Unregistered sites' records (site
 * '') sit beside them. For generated filter × dimension combinations, on the raw table and the rollup,
 * every cell of the answer without a token is compared with every cell of each site's own answer (its
 * read token, the same query): none may give the same records and clients for the same key.
 * docs/integrity.md ("No answer singles out a site") says why the rule is k-sites.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generate, insertRows } from '../support/generate';
import { removeDir, startApp, type TestApp } from '../support/helpers';

const ADMIN = 'admin-token-for-the-k-sites-test';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOW = Math.floor(Date.now() / HOUR) * HOUR - HOUR;
const SITES = ['a.example', 'b.example', 'c.example'] as const;

type Row = ReturnType<typeof generate>[number];
const traffic = { rtt: 40, fullTls: 80, resumedTls: 40, resumedShare: 0.5, tls13Share: 0.7, records: 400, clients: 40 };

/** Rows of one site in one day, with crypto facts as ingest stores them. */
function rows(site: string, seed: number, day: number, over: (r: Row, i: number) => Partial<Row>): Row[] {
  const from = NOW - day * DAY - 2 * HOUR;
  return generate({
    ...traffic,
    site,
    from,
    to: from + HOUR,
    h3Share: site === 'a.example' ? 0.3 : 0,
    country: 'DE',
    seed,
  }).map((r, i) => ({ ...r, ...over(r, i) }));
}

const firefox = (scheme: string) => ({
  browser: 'firefox',
  cryptoSource: 'observed',
  signatureScheme: scheme,
  keyExchangeGroup: 'X25519',
  cipher: 'TLS_AES_128_GCM_SHA256',
});
const chromiumProbe = (keyType: string, bits: number, chain: number) => ({
  browser: 'chrome',
  cryptoSource: 'probe',
  certKeyType: keyType,
  certKeyBits: bits,
  certChainLength: chain,
  keyExchangeGroup: 'X25519MLKEM768',
  cipher: 'TLS_AES_128_GCM_SHA256',
});

function data(): Row[] {
  const out: Row[] = [];
  for (const day of [0, 3]) {
    out.push(
      ...rows('a.example', 1 + day, day, (_r, i) =>
        i % 2 ? firefox('rsa_pss_rsae_sha512') : chromiumProbe('rsa', 4096, 2),
      ),
      ...rows('b.example', 2 + day, day, (_r, i) =>
        i % 2 ? firefox('ecdsa_secp256r1_sha256') : chromiumProbe('ecdsa', 256, 2),
      ),
      ...rows('c.example', 3 + day, day, (_r, i) => ({
        ...(i % 2 ? firefox('ecdsa_secp256r1_sha256') : chromiumProbe('ecdsa', 256, 4)),
        ...(i % 4 === 0 ? { country: 'NZ' } : {}),
      })),
      // Unregistered sites: no hostname stored, the browser's own facts only.
      ...rows('', 4 + day, day, () => ({ ...firefox('ecdsa_secp256r1_sha256'), site: '' })),
    );
  }
  return out;
}

const FILTERS: Record<string, readonly string[]> = {
  certKey: ['RSA-4096', 'ECDSA-P256'],
  chainLength: ['2', '4'],
  signatureScheme: ['rsa_pss_rsae_sha512', 'ecdsa_secp256r1_sha256'],
  group: ['X25519', 'X25519MLKEM768'],
  cipher: ['TLS_AES_128_GCM_SHA256'],
  browser: ['chrome', 'firefox'],
  country: ['DE', 'NZ'],
  pq: ['hybrid', 'classical'],
};
const DIMENSIONS = [
  'stack',
  'mode',
  'certKey',
  'chainLength',
  'signatureScheme',
  'cryptoSource',
  'group',
  'cipher',
  'country',
  'browser',
  'protocol',
  'pq',
];

type Cell = { key: Record<string, string>; t?: number; suppressed?: boolean; records?: number; clients?: number };

describe('no tokenless answer reproduces a registered site’s own figures', () => {
  let t: TestApp;
  const tokens: Record<string, string> = {};
  beforeAll(async () => {
    t = await startApp({
      ADMIN_TOKEN: ADMIN,
      MIN_CLIENTS_PER_CELL: '5',
      MIN_SITES_PER_CELL: '2',
      ALERT_INTERVAL_MS: '0',
    });
    await insertRows(t.app.store.ingest, data());
    for (const site of SITES) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/v1/sites',
        payload: { hostname: site },
        headers: { authorization: `Bearer ${ADMIN}` },
      });
      tokens[site] = res.json().readToken;
    }
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    if (t) removeDir(t.dataDir);
  });

  const ask = async (url: string, token?: string) => {
    const res = await t.app.inject({ url, headers: token ? { authorization: `Bearer ${token}` } : {} });
    expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
    return res.json<{ cells: Cell[] }>().cells.filter((c) => !c.suppressed);
  };
  const id = (c: Cell) => JSON.stringify([c.key, c.t ?? null, c.records, c.clients]);

  /** Tokenless cells equal (key, records, clients) to a cell of some site's own answer to the same query. */
  async function reproduced(route: string, query: string): Promise<string[]> {
    const open = await ask(`${route}?${query}`);
    const found: string[] = [];
    for (const site of SITES) {
      const own = new Set((await ask(`${route}?${query}&site=${site}`, tokens[site])).map(id));
      for (const c of open) if (own.has(id(c))) found.push(`${route}?${query}: ${site} ${id(c)}`);
    }
    return found;
  }

  const RAW = `from=${NOW - 4 * DAY}&to=${NOW + HOUR}&table=raw`;
  const ROLLUP = `from=${NOW - 10 * DAY}&to=${NOW + HOUR}&table=rollup`;

  it('the reported case: certKey=RSA-4096 by stack,mode (and the check can fail: each site answers it)', async () => {
    for (const range of [RAW, ROLLUP]) {
      expect(await reproduced('/v1/compare', `${range}&certKey=RSA-4096&dimensions=stack,mode`)).toEqual([]);
      expect(
        (await ask(`/v1/compare?${range}&certKey=RSA-4096&dimensions=stack,mode&site=a.example`, tokens['a.example']))
          .length,
      ).toBeGreaterThan(0);
    }
  });

  it('for generated filters × dimensions on compare, phases and map, raw table and rollup', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc
          .subarray(Object.keys(FILTERS), { maxLength: 2 })
          .chain((names) =>
            fc.tuple(
              fc.tuple(...names.map((n) => fc.constantFrom(...FILTERS[n]!.map((v) => `${n}=${v}`)))),
              fc.subarray(DIMENSIONS, { minLength: 1, maxLength: 2 }),
              fc.constantFrom(RAW, ROLLUP),
              fc.constantFrom('/v1/compare', '/v1/phases', '/v1/map'),
            ),
          ),
        async ([filters, dimensions, range, route]) => {
          const query = [
            range,
            ...filters,
            ...(route === '/v1/map' ? [] : [`dimensions=${dimensions.join(',')}`]),
          ].join('&');
          expect(await reproduced(route, query)).toEqual([]);
        },
      ),
      { numRuns: 40 },
    );
  }, 240_000);

  it('without the rule (MIN_SITES_PER_CELL=1) the same walk does find a reproduced site: the test can fail', async () => {
    const saved = t.app.config.minSitesPerCell;
    (t.app.config as { minSitesPerCell: number }).minSitesPerCell = 1;
    try {
      expect((await reproduced('/v1/compare', `${RAW}&certKey=RSA-4096&dimensions=stack,mode`)).length).toBeGreaterThan(
        0,
      );
    } finally {
      (t.app.config as { minSitesPerCell: number }).minSitesPerCell = saved;
    }
  });
});
