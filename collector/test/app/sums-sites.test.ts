/**
 * Cuts kept one site each, with no rows of every site together (the source and browser cuts, the pair cuts, the
 * country coverage cuts):
 * every site's figures sum the sites' rows. The same people on two sites are counted once, and the records,
 * suppression, mixes and percentiles are the raw table's, with a token and without.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HandshakeRecord } from '@tlsrum/shared';
import { chooseReadTable } from '../../src/query/sources';
import { filterDimension, type Dimension } from '../../src/query/dimensions';
import type { ValueFilterName } from '@tlsrum/shared/query';
import {
  expectSameAsRaw,
  insertRecords,
  type AnswerCell,
  makeRecords,
  removeDir,
  startApp,
  type TestApp,
} from '../support/helpers';

const DAY = 86_400_000;
const ADMIN = 'sums-sites-admin-token-0123456789';
const SITES = ['a.example', 'b.example', 'c.example'];
/** Noon three days ago: the whole days around it are in the rollups. */
const at = Math.floor(Date.now() / DAY) * DAY - 3 * DAY + DAY / 2;
const days = `from=${at - DAY / 2 - 7 * DAY}&to=${at + DAY / 2}`;
let t: TestApp;

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
  await insertRecords(
    t.app,
    [
      ...on('a.example', 60, 'shared'),
      ...on('b.example', 60, 'shared'),
      ...on('c.example', 24, 'own'),
      ...on('a.example', 12, 'few', { certKeyType: 'rsa', certKeyBits: 3072 }),
    ],
    { isRegisteredSite: (h) => SITES.includes(h) },
  );
}, 60_000);
afterAll(async () => {
  await t.close();
  removeDir(t.dataDir);
});

const answer = async (url: string, token: boolean) => {
  const res = await t.app.inject({ url, headers: token ? { authorization: `Bearer ${ADMIN}` } : {} });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { table: string; cells: AnswerCell[] };
};

const MIX_COLUMNS: Dimension[] = ['protocol', 'tlsVersion', 'resumed', 'handshakeClass'];

describe('every site together from a cut of one site each', () => {
  // The 30 people of a.example and b.example and the 12 of c.example: 42, not 72; the browser's split holds the
  // 6 of the other certificate key too.
  it.each([
    [
      'a crypto column under a source filter (the source and browser cuts)',
      {
        dimensions: ['certKey'],
        filter: ['source', 'rum'],
        people: 42,
        records: 144,
      },
    ],
    [
      'a crypto column under a filter on another one (the pair cuts)',
      {
        dimensions: ['certKey'],
        filter: ['cipher', 'TLS_AES_128_GCM_SHA256'],
        people: 42,
        records: 144,
      },
    ],
    [
      "the browser's crypto-source split under a crypto filter",
      {
        dimensions: ['browser', 'cryptoSource'],
        filter: ['chainLength', '3'],
        people: 48,
        records: 156,
      },
    ],
    [
      "the browser's crypto-source split under a country filter (the country coverage cuts)",
      {
        dimensions: ['browser', 'cryptoSource'],
        filter: ['country', 'DE'],
        people: 48,
        records: 156,
      },
    ],
  ] as [string, { dimensions: Dimension[]; filter: [ValueFilterName, string]; people: number; records: number }][])(
    "%s: the raw table's records, people counted once, suppression and mixes, with a token and without",
    async (_, { dimensions, filter: [f, v], people, records }) => {
      // No rows of every site together: a cell's joint cells (by the mix columns) read a cut of one site each,
      // summed (where two crypto columns' own cells come from their combinations, 0009, these still do).
      const joint = chooseReadTable({
        table: 'rollup',
        dimensions: [...dimensions, ...MIX_COLUMNS],
        filters: [filterDimension(f)],
        site: null,
        minClients: 10,
        from: at - DAY / 2 - 7 * DAY,
        to: at + DAY / 2,
      });
      expect(joint).toMatchObject({ sites: 'one', sumsSites: true });
      const q = `/v1/compare?${days}&dimensions=${dimensions.join(',')}&${f}=${v}`;
      for (const token of [true, false]) {
        const [raw, rollup] = await Promise.all(['raw', 'rollup'].map((tb) => answer(`${q}&table=${tb}`, token)));
        expectSameAsRaw(rollup!, raw!, `token: ${token}`);
        const shown = rollup!.cells.filter((c) => !c.suppressed);
        expect(shown.map((c) => [c.clients, c.records])).toEqual([[people, records]]);
        // The certificate key of six people is suppressed.
        if (dimensions.includes('certKey'))
          expect(rollup!.cells.find((c) => c.key.certKey === 'RSA-3072')).toEqual({
            key: { certKey: 'RSA-3072' },
            suppressed: true,
          });
      }
    },
  );
});
