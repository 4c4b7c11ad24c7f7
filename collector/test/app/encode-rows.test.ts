import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INSERT_COLUMNS } from '../../src/ingest/columns';
import {
  encodeRecordTsv,
  encodeRowsTsv,
  encodeRowTsv,
  epochMsText,
  tsvString,
  TSV_INSERT_QUERY,
} from '../../src/ingest/encode-rows';
import type { HandshakeRow } from '../../src/ingest/columns';
import { toRow } from '../../src/ingest/to-row';
import { migrate } from '../../src/platform/store/migrate';
import { makeBatch, makeRecords, openStore, removeDir, tempDir } from '../support/helpers';

function rows(n: number, overrides: Parameters<typeof makeRecords>[1] = {}): HandshakeRow[] {
  const batch = makeBatch(makeRecords(n, overrides));
  const ctx = { batch, country: 'DE', receivedAt: 1_763_900_000_123, isRegisteredSite: () => true };
  return batch.records.map((r) => toRow(r, ctx));
}

describe('TabSeparated row encoder', () => {
  it('writes one line per row with one field per insert column, in that order', () => {
    const [row] = rows(1);
    const line = encodeRowTsv(row!);
    expect(line.endsWith('\n')).toBe(true);
    const fields = line.slice(0, -1).split('\t');
    expect(fields).toHaveLength(INSERT_COLUMNS.length);
    expect(fields[INSERT_COLUMNS.indexOf('batchId')]).toBe(row!.batchId);
    expect(fields[INSERT_COLUMNS.indexOf('clientToken')]).toBe(row!.clientToken);
    expect(fields[INSERT_COLUMNS.indexOf('tls')]).toBe(String(row!.tls));
    expect(TSV_INSERT_QUERY).toContain(`(${INSERT_COLUMNS.join(', ')}) FORMAT TabSeparated`);
  });

  it('encodes a record straight to the line its row gives (the ingest path skips the row object)', () => {
    const nulls = makeRecords(3, { tlsVersion: null, resumed: null, rttHint: null, site: null });
    const hostile = makeRecords(2, { cipher: 'a\tb\\c', signatureScheme: 'x\ny' });
    for (const records of [makeRecords(5), nulls, hostile]) {
      const batch = makeBatch(records);
      const ctx = {
        batch,
        country: 'DE',
        receivedAt: 1_763_900_000_123,
        isRegisteredSite: (h: string) => h.startsWith('www.'),
      };
      for (const r of batch.records) expect(encodeRecordTsv(r, ctx)).toBe(encodeRowTsv(toRow(r, ctx)));
    }
  });

  it('writes NULL as \\N and booleans as true/false', () => {
    const [row] = rows(1);
    const line = encodeRowTsv({ ...row!, tlsVersion: null, resumed: null, certChainLength: null, rttHint: null });
    const fields = line.slice(0, -1).split('\t');
    for (const c of ['tlsVersion', 'resumed', 'certChainLength', 'rttHint'] as const)
      expect(fields[INSERT_COLUMNS.indexOf(c)]).toBe('\\N');
    const yes = encodeRowTsv({ ...row!, resumed: true }).split('\t')[INSERT_COLUMNS.indexOf('resumed')];
    expect(yes).toBe('true');
  });

  it('escapes tab, newline, carriage return and backslash so a hostile string cannot shift columns', () => {
    expect(tsvString('a\tb\nc\rd\\e')).toBe('a\\tb\\nc\\rd\\\\e');
    const [row] = rows(1);
    const line = encodeRowTsv({ ...row!, os: 'x\ty\nz', agentVersion: 'back\\slash' });
    expect(line.indexOf('\n')).toBe(line.length - 1);
    expect(line.slice(0, -1).split('\t')).toHaveLength(INSERT_COLUMNS.length);
  });

  it('writes epoch milliseconds as seconds with three decimals', () => {
    expect(epochMsText(1_763_900_000_123)).toBe('1763900000.123');
    expect(epochMsText(1_763_900_000_007)).toBe('1763900000.007');
    expect(epochMsText(1_763_900_000_050)).toBe('1763900000.050');
    expect(epochMsText(1_763_900_000_000)).toBe('1763900000.000');
  });
});

describe('TabSeparated insert into the real store', () => {
  let dir: string;
  let store: ReturnType<typeof openStore>;
  beforeAll(async () => {
    dir = tempDir('tlsrum-encode-');
    store = openStore({ dataDir: dir, clickhouse: null });
    await migrate(store.ingest);
  });
  afterAll(async () => {
    await store?.close();
    removeDir(dir);
  });

  const insert = async (query: string, body: string) => {
    const result = await store.ingest.exec({
      query,
      values: Readable.from([Buffer.from(body)], { objectMode: false }),
    });
    for await (const _ of result.stream) void _;
  };
  const read = async (batchId: string) => {
    const rs = await store.query.query({
      query: `SELECT * EXCEPT batchId FROM handshakes WHERE batchId = {id:UUID} ORDER BY ts, clientToken, tls`,
      query_params: { id: batchId },
      format: 'JSONEachRow',
    });
    return rs.json();
  };

  it('stores exactly what the JSONEachRow insert stores, nulls and escapes included', async () => {
    const base = rows(40);
    const varied = base.map((r, i) => ({
      ...r,
      ts: r.ts + i * 7,
      tlsVersion: i % 3 === 0 ? null : r.tlsVersion,
      resumed: i % 4 === 0 ? null : i % 2 === 0,
      certChainLength: i % 5 === 0 ? null : 3,
      rttHint: i % 2 ? null : 75,
      tls: 0.1 * i,
      agentVersion: i === 7 ? 'tab\there\\and\nnewline' : r.agentVersion,
    }));
    const viaJson = varied.map((r) => ({ ...r, batchId: '00000000-0000-4000-a000-00000000000a' }));
    const viaTsv = varied.map((r) => ({ ...r, batchId: '00000000-0000-4000-a000-00000000000b' }));
    await insert('INSERT INTO handshakes FORMAT JSONEachRow', viaJson.map((r) => JSON.stringify(r)).join('\n'));
    await insert(TSV_INSERT_QUERY, encodeRowsTsv(viaTsv));
    const a = await read(viaJson[0]!.batchId);
    const b = await read(viaTsv[0]!.batchId);
    expect(a).toHaveLength(40);
    expect(b).toEqual(a);
  });
});
