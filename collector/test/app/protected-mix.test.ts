/**
 * A handshake cell's mixes on a real store (mix-protection.ts): a share is shown unless, with it, the records
 * of a group of hidden joint cells would follow from the cell's shown figures; a share a hidden joint cell
 * holds is shown when no such group then follows. The same answer from the raw table and from the rollup,
 * and for a series bucket as for a whole range. And the combination numbers and the `stack` and `mode` the
 * protection computes are the store's own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HandshakeRecord } from '@tlsrum/shared';
import { insertRecords, makeRecords, removeDir, startApp, type TestApp } from '../support/helpers';
import { DIMENSIONS } from '@tlsrum/shared/query';
import { DIMENSION_SQL } from '../../src/query/dimensions';
import { comboValues, JOINT_COLUMNS, jointComboSql } from '../../src/query/mix-protection';

const MIN_CLIENTS = 10;
const HOUR = 3600_000;
let t: TestApp;
/** Two hours ago, at the start of an hour: every row falls in one hour bucket. */
const base = Math.floor(Date.now() / HOUR) * HOUR - 2 * HOUR;
const range = `from=${base - HOUR}&to=${base + 2 * HOUR}`;

/** `records` TLS 1.3 records of `protocol` and `handshakeClass`, from `clients` clients of their own. */
function joint(protocol: string, handshakeClass: string, records: number, clients: number): HandshakeRecord[] {
  return makeRecords(
    records,
    {
      tlsVersion: '1.3',
      protocol: protocol as HandshakeRecord['protocol'],
      handshakeClass: handshakeClass as HandshakeRecord['handshakeClass'],
      resumed: handshakeClass === '0rtt',
      resumedSource: 'observed',
      browser: 'firefox',
      ...(protocol === 'h3' ? { transport: 'quic' as const } : {}),
    },
    clients,
  ).map((r, i) => ({ ...r, ts: base + i * 1000, clientToken: `${protocol}-${handshakeClass}-${i % clients}-token` }));
}

beforeAll(async () => {
  t = await startApp({ MIN_CLIENTS_PER_CELL: String(MIN_CLIENTS), CLIENT_RECORDS_PER_CELL_DAY: '0' });
  // One cell (TLS 1.3) of four joint cells: three shown and one hidden (0-RTT over h2, 2 clients).
  // Unregistered records: no k-sites rule.
  const records = [
    ...joint('h3', '1rtt', 30, 15),
    ...joint('h2', '0rtt', 5, 2),
    ...joint('http/1.1', '1rtt', 30, 15),
    ...joint('h2', '1rtt', 400, 20),
  ];
  await insertRecords(t.app, records);
}, 60_000);
afterAll(async () => {
  await t.close();
  removeDir(t.dataDir);
});

describe('protected mix', () => {
  it.each([
    ['/v1/compare?dimensions=tlsVersion', 'raw'],
    ['/v1/compare?dimensions=tlsVersion', 'rollup'],
    ['/v1/timeseries?dimensions=tlsVersion&interval=hour', 'raw'],
    ['/v1/timeseries?dimensions=tlsVersion&interval=hour', 'rollup'],
  ])('shows each share unless a group of hidden joint cells would follow from it (%s, %s)', async (url, table) => {
    const res = await t.app.inject({ url: `${url}&${range}&table=${table}` });
    expect(res.statusCode).toBe(200);
    const cells = res.json().cells.filter((c: { key: { tlsVersion: string } }) => c.key.tlsVersion === '1.3');
    expect(cells).toHaveLength(1);
    const [cell] = cells;
    expect(cell.records).toBe(465);
    // h2 holds the hidden 0-RTT joint cell, but only beside h2 over 1-RTT: no protocol's share gives it.
    expect(cell.mix.protocol).toEqual({ 'http/1.1': 0.0645, h2: 0.871, h3: 0.0645, other: 0 });
    // 0-RTT is the hidden joint cell alone; 1-RTT (a full handshake) is the cell's records less it: both left
    // out, in the class's mix and in the mode's, which are computed from the same columns.
    expect(cell.mix.handshakeClass).toEqual({ 'full-2rtt': 0, unknown: 0 });
    expect(cell.mix.mode).toEqual({ resumed: 0, unknown: 0 });
    expect(cell.mix.tlsVersion).toEqual({ '1.2': 0, '1.3': 1, unknown: 0 });
  });

  it('numbers each combination and computes its stack and mode as the store does', async () => {
    const sql = (d: 'stack' | 'mode') => DIMENSION_SQL[d].rollup!.sql;
    // Every combination of the joint columns' values (one arrayJoin per column: their product), as the rollup holds them.
    const values = JOINT_COLUMNS.map((c) => `arrayJoin({${c}:Array(String)}) AS ${c}`);
    const rows = await (
      await t.app.store.query.query({
        query: `SELECT ${jointComboSql((c) => c)} AS combo, ${JOINT_COLUMNS.join(', ')}, ${sql('stack')} AS stack, ${sql('mode')} AS mode
          FROM (SELECT ${values.join(', ')})`,
        query_params: Object.fromEntries(JOINT_COLUMNS.map((c) => [c, [...DIMENSIONS[c].values]])),
        format: 'JSONEachRow',
      })
    ).json<Record<string, string | number>>();
    expect(rows).toHaveLength(144);
    for (const row of rows) {
      const { combo, ...attributes } = row;
      expect(comboValues(Number(combo))).toEqual(attributes);
    }
  });
});
