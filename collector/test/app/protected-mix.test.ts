/**
 * A handshake cell's mixes on a real store: a mix value held by a hidden joint cell is left out, and beside a
 * lone hidden joint cell the smallest shown one is hidden too, ties going to the first by value, so that the
 * cell's records minus the shown shares never give the hidden one. The same answer from the raw table and
 * from the rollup, and for a series bucket as for a whole range.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HandshakeRecord } from '@tlsrum/shared';
import { insertRecords, makeRecords, removeDir, startApp, type TestApp } from '../support/helpers';

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
  // One cell (TLS 1.3) of four joint cells: three shown, two of them tied for the smallest, and one hidden
  // (2 clients). Unregistered records: no k-sites rule.
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
  ])(
    'hides the tied smallest joint cell that comes first by value beside a lone hidden one (%s, %s)',
    async (url, table) => {
      const res = await t.app.inject({ url: `${url}&${range}&table=${table}` });
      expect(res.statusCode).toBe(200);
      const cells = res.json().cells.filter((c: { key: { tlsVersion: string } }) => c.key.tlsVersion === '1.3');
      expect(cells).toHaveLength(1);
      const [cell] = cells;
      expect(cell.records).toBe(465);
      // h2 is held by the hidden 0-RTT joint cell; of h3 and http/1.1, tied at 30 records, h3 comes first by
      // value and is withheld with it; http/1.1 is shown, and a value no joint cell holds shows as 0.
      expect(cell.mix.protocol).toEqual({ 'http/1.1': 0.0645, other: 0 });
      // 0rtt is the hidden joint cell's; 1rtt is held by h3's withheld joint cell too.
      expect(cell.mix.handshakeClass).toEqual({ 'full-2rtt': 0, unknown: 0 });
      expect(cell.mix.mode).toEqual({ resumed: 0, unknown: 0 });
      expect(cell.mix.tlsVersion).toEqual({ '1.2': 0, unknown: 0 });
    },
  );
});
