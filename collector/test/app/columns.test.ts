/**
 * The column registry (ingest/columns.ts) against the facts it must agree with: the record schema (every
 * field stored), the migrated table (every column written), and what toRow and the encoder produce.
 */
import { HandshakeRecord } from '@tlsrum/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COLUMN_LIST, INSERT_COLUMNS } from '../../src/ingest/columns';
import { encodeRowTsv, TSV_INSERT_QUERY } from '../../src/ingest/encode-rows';
import { toRow } from '../../src/ingest/to-row';
import { migrate } from '../../src/platform/store/migrate';
import { makeBatch, makeRecords, openStore, removeDir, tempDir } from '../support/helpers';

describe('column registry', () => {
  it('stores every record field in exactly one column', () => {
    const fields = Object.keys(HandshakeRecord.properties);
    const stored = COLUMN_LIST.flatMap((c) => (c.field === null ? [] : [c.field]));
    expect([...stored].sort()).toEqual([...fields].sort());
  });

  it('toRow fills every column, in registry order, and the encoder writes them in that order', () => {
    const batch = makeBatch(makeRecords(1));
    const row = toRow(batch.records[0]!, {
      batch,
      country: 'DE',
      receivedAt: Date.now(),
      isRegisteredSite: () => true,
    });
    expect(Object.keys(row)).toEqual(INSERT_COLUMNS);
    const fields = encodeRowTsv(row).slice(0, -1).split('\t');
    expect(fields).toHaveLength(INSERT_COLUMNS.length);
    expect(fields[INSERT_COLUMNS.indexOf('site')]).toBe(row.site);
    expect(fields[INSERT_COLUMNS.indexOf('browserMajor')]).toBe(String(row.browserMajor));
    expect(TSV_INSERT_QUERY).toBe(`INSERT INTO handshakes (${INSERT_COLUMNS.join(', ')}) FORMAT TabSeparated`);
  });

  describe('against the migrated table', () => {
    let dir: string;
    let store: ReturnType<typeof openStore>;
    beforeAll(async () => {
      dir = tempDir('tlsrum-columns-');
      store = openStore({ dataDir: dir, clickhouse: null });
      await migrate(store.ingest);
    });
    afterAll(async () => {
      await store?.close();
      removeDir(dir);
    });

    it('writes every column of handshakes that takes a value, and no other (a migration needs its registry line)', async () => {
      const rs = await store.query.query({
        query:
          "SELECT name FROM system.columns WHERE database = currentDatabase() AND table = 'handshakes' AND default_kind NOT IN ('MATERIALIZED', 'ALIAS', 'EPHEMERAL')",
        format: 'JSONEachRow',
      });
      const table = (await rs.json<{ name: string }>()).map((r) => r.name);
      expect([...INSERT_COLUMNS].sort()).toEqual(table.sort());
    });
  });
});
