/**
 * The dashboard shows when a cell rests on few people. `fewClients` marks a cell under twice the
 * suppression threshold, or one whose 3 heaviest client tokens could hold half its records under the
 * per-client cap — which, with the default K = 5 and threshold 20, cannot happen above 40 clients: the cap
 * already keeps three people from dominating. A larger K lets it happen, and the mark says so.
 */
import { describe, expect, it } from 'vitest';
import type { HandshakeRecord } from '@tlsrum/shared';
import { fewClients } from '../../src/query/cells';
import { makeBatch, makeRecords, postBatch, withApp, type TestApp } from '../support/helpers';

describe('fewClients (pure)', () => {
  it('under twice the threshold is few, whatever the records', () => {
    expect(fewClients(39, 39, 20, null)).toBe(true);
    expect(fewClients(40, 40, 20, null)).toBe(false);
  });
  it('three heavy tokens over many light ones: few only when the cap lets them hold half', () => {
    // 42 people with one record + 3 with 150 each: capped at K per day.
    expect(fewClients(42 + 3 * 5, 45, 20, { k: 5, days: 1 })).toBe(false);
    expect(fewClients(42 + 3 * 50, 45, 20, { k: 50, days: 1 })).toBe(true);
    // Everyone at one record: nobody can be heavy, whatever K.
    expect(fewClients(500, 500, 20, { k: 1000, days: 2 })).toBe(false);
  });
  it('at the defaults (K = 5, threshold 20) the bound adds nothing above 40 clients', () => {
    for (let clients = 40; clients <= 400; clients++)
      for (let records = clients; records <= clients * 10; records++)
        expect(fewClients(records, clients, 20, { k: 5, days: 2 })).toBe(false);
  });
});

/** `light` people with one record each and `heavy` people with `each` records each, each from its own address. */
async function send(t: TestApp, light: number, heavy: number, each: number, from = 0) {
  const records: Array<{ r: HandshakeRecord[]; ip: string }> = [];
  for (let i = from; i < from + light; i++)
    records.push({ r: makeRecords(1, { clientToken: `light-client-${i}` }), ip: `127.0.1.${i}` });
  for (let i = 0; i < heavy; i++)
    records.push({ r: makeRecords(each, { clientToken: `heavy-client-${i}` }), ip: `127.0.2.${i}` });
  for (const { r, ip } of records) expect((await postBatch(t.app, makeBatch(r), { ip })).statusCode).toBe(202);
  await t.app.ingest.flush();
}

async function onlyCell(t: TestApp, table: 'raw' | 'rollup' = 'raw') {
  const res = await t.app.inject({ method: 'GET', url: `/v1/compare?dimensions=protocol&table=${table}` });
  expect(res.statusCode).toBe(200);
  const body = res.json<{ table: string; cells: Array<{ records: number; clients: number; fewClients?: boolean }> }>();
  expect(body.table).toBe(table);
  expect(body.cells).toHaveLength(1);
  return body.cells[0]!;
}

describe('fewClients in answers (real embedded store, raw table)', () => {
  it('30 people: few; 45 with three heavy ones at K = 5: not few (the cap holds them to 5 each)', async () => {
    await withApp({ MIN_CLIENTS_PER_CELL: '20' }, async (t) => {
      await send(t, 30, 0, 0);
      expect(await onlyCell(t)).toMatchObject({ clients: 30, fewClients: true });
      // The rollup caps per finer cell, so there only the head count marks a cell.
      expect(await onlyCell(t, 'rollup')).toMatchObject({ clients: 30, fewClients: true });
      await send(t, 12, 3, 150, 30);
      const cell = await onlyCell(t);
      expect(cell).toMatchObject({ clients: 45, records: 42 + 15 });
      expect(cell.fewClients).toBeUndefined();
    });
  });

  it("the same traffic with K = 50: three people could hold half of one site's records, and its cell says so", async () => {
    const admin = 'admin-token-for-few-clients';
    await withApp({ MIN_CLIENTS_PER_CELL: '20', CLIENT_RECORDS_PER_CELL_DAY: '50', ADMIN_TOKEN: admin }, async (t) => {
      const site = makeRecords(1)[0]!.site!;
      expect(
        (
          await t.app.inject({
            method: 'POST',
            url: '/v1/sites',
            payload: { hostname: site },
            headers: { authorization: `Bearer ${admin}` },
          })
        ).statusCode,
      ).toBe(201);
      await send(t, 42, 3, 150);
      for (const table of ['raw', 'rollup'] as const) {
        const res = await t.app.inject({
          method: 'GET',
          url: `/v1/compare?dimensions=protocol&table=${table}&site=${site}`,
          headers: { authorization: `Bearer ${admin}` },
        });
        const cells = res.json<{ cells: Array<{ records: number; clients: number; fewClients?: boolean }> }>().cells;
        // Both count 50 of each heavy client (the ingest marks); the raw table's answer, where the cap is
        // per cell and day for one site, says three people could hold half of it.
        expect(cells, table).toEqual([expect.objectContaining({ clients: 45, records: 42 + 150 })]);
        expect(cells[0]!.fewClients, table).toBe(table === 'raw' ? true : undefined);
      }
    });
  });
});
