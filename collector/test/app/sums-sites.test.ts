/**
 * Cuts kept one site each, with no rows of every site together (the source and browser cuts, the pair cuts):
 * every site's figures sum the sites' rows. The same people on two sites are counted once, and the records,
 * suppression, mixes and percentiles are the raw table's, with a token and without.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HandshakeRecord } from '@tlsrum/shared';
import { chooseReadTable } from '../../src/query/sources';
import { toRow } from '../../src/ingest/to-row';
import { makeRecords, removeDir, startApp, type TestApp } from '../support/helpers';

const DAY = 86_400_000;
const ADMIN = 'sums-sites-admin-token-0123456789';
const SITES = ['a.example', 'b.example', 'c.example'];
/** Noon three days ago: the whole days around it are in the rollups. */
const at = Math.floor(Date.now() / DAY) * DAY - 3 * DAY + DAY / 2;
const days = `from=${at - DAY / 2 - 7 * DAY}&to=${at + DAY / 2}`;
let t: TestApp;

async function insert(records: HandshakeRecord[]) {
  const batch = { batchId: crypto.randomUUID(), agent: { name: 'tlsrum-test', version: '1' } };
  const rows = records.map((r) => ({
    ...toRow(r, { batch, country: 'DE', receivedAt: r.ts, isRegisteredSite: (h) => SITES.includes(h) }),
    implausible: 0,
  }));
  await t.app.store.ingest.insert({ table: 'handshakes', values: rows, format: 'JSONEachRow' });
}

beforeAll(async () => {
  t = await startApp({
    ADMIN_TOKEN: ADMIN,
    MIN_CLIENTS_PER_CELL: '10',
    MIN_SITES_PER_CELL: '2',
    CLIENT_RECORDS_PER_CELL_DAY: '0',
  });
  // The same 30 people on a.example and b.example (a client token each, the same on both sites), 12 others on
  // c.example alone, and 6 on a.example with another certificate key: a cell of their own, suppressed.
  const on = (site: string, n: number, clients: string, f: Partial<HandshakeRecord> = {}) =>
    makeRecords(n, { site, source: 'rum', browser: 'firefox', ...f }).map((r, i) => ({
      ...r,
      ts: at + i * 1000,
      tls: 40 + (i % 9),
      clientToken: `${clients}-client-${i % (n / 2)}-xx`,
    }));
  await insert([
    ...on('a.example', 60, 'shared'),
    ...on('b.example', 60, 'shared'),
    ...on('c.example', 24, 'own'),
    ...on('a.example', 12, 'few', { certKeyType: 'rsa', certKeyBits: 3072 }),
  ]);
}, 60_000);
afterAll(async () => {
  await t.close();
  removeDir(t.dataDir);
});

type C = { key: Record<string, string>; suppressed?: boolean; records?: number; clients?: number; mix?: unknown };
const answer = async (url: string, token: boolean) => {
  const res = await t.app.inject({ url, headers: token ? { authorization: `Bearer ${ADMIN}` } : {} });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { table: string; cells: (C & { tls?: { p50: number } })[] };
};

describe('every site together from a cut of one site each', () => {
  it.each([
    ['a crypto column under a source filter (the source and browser cuts)', 'dimensions=certKey&source=rum'],
    [
      'a crypto column under a filter on another one (the pair cuts)',
      'dimensions=certKey&cipher=TLS_AES_128_GCM_SHA256',
    ],
    ["the browser's crypto-source split under a crypto filter", 'dimensions=browser,cryptoSource&chainLength=3'],
  ])(
    "%s: the raw table's records, people counted once, suppression and mixes, with a token and without",
    async (_, q) => {
      const table = chooseReadTable({
        table: 'rollup',
        // A cell's joint cells (by the mix columns): where two crypto columns' cells come from their combinations
        // (0009), these still read the pair cut.
        dimensions: [
          ...(q.includes('browser') ? (['browser', 'cryptoSource'] as const) : (['certKey'] as const)),
          ...(['protocol', 'tlsVersion', 'resumed', 'handshakeClass'] as const),
        ],
        filters: q.includes('source=') ? ['source'] : q.includes('cipher=') ? ['cipher'] : ['chainLength'],
        site: null,
        minClients: 10,
        from: at - DAY / 2 - 7 * DAY,
        to: at + DAY / 2,
      });
      // No rows of every site together: the cut read is one of one site each, summed.
      expect(table).toMatchObject({ sites: 'one', sumsSites: true });
      for (const token of [true, false]) {
        const [raw, rollup] = await Promise.all(
          ['raw', 'rollup'].map((tb) => answer(`/v1/compare?${days}&${q}&table=${tb}`, token)),
        );
        expect(rollup!.table).toBe('rollup');
        const counted = (b: { cells: C[] }) =>
          b.cells.map((c) => [c.key, c.suppressed ?? false, c.records, c.clients, c.mix]);
        expect(counted(rollup!), `token: ${token}`).toEqual(counted(raw!));
        for (const [i, c] of rollup!.cells.entries())
          if (!c.suppressed)
            expect(Math.abs(c.tls!.p50 - raw!.cells[i]!.tls!.p50) / raw!.cells[i]!.tls!.p50).toBeLessThan(0.035);
        // The 30 people of a.example and b.example and the 12 of c.example: 42, not 72 (with the 6 of the other
        // certificate key where the cell holds them too).
        const shown = rollup!.cells.filter((c) => !c.suppressed);
        const split = q.includes('browser');
        expect(shown.map((c) => c.clients)).toEqual([split ? 48 : 42]);
        expect(shown.map((c) => c.records)).toEqual([split ? 156 : 144]);
      }
      // The certificate key of six people is suppressed, with a token and without.
      if (q.startsWith('dimensions=certKey&source'))
        expect(
          (await answer(`/v1/compare?${days}&${q}`, false)).cells.find((c) => c.key.certKey === 'RSA-3072'),
        ).toEqual({
          key: { certKey: 'RSA-3072' },
          suppressed: true,
        });
    },
  );
});
