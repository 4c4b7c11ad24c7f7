/**
 * An upgrade never strands spooled data (real embedded store, real spool files):
 * - segments an older release left in the spool (headerless TabSeparated in the v1 column order,
 *   headerless JSONEachRow, and a headed segment with fewer columns than today's) replay after an
 *   upgrade that adds columns to the table: every row stored once, the new columns at their defaults;
 * - a segment the store refuses for its content is quarantined after its tries, later segments are
 *   stored, ingest keeps answering 202, and the operator can list, replay and drop it.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { ClickHouseLogLevel, createClient } from '@clickhouse/client';
import type { HandshakeBatch } from '@tlsrum/shared';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli';
import { INSERT_COLUMNS, type HandshakeRow } from '../../src/ingest/columns';
import { tsvEncoder } from '../../src/ingest/encode-rows';
import { QUARANTINE_DIR } from '../../src/ingest/spool/quarantine';
import { entryFrame, headerFrame, V1_COLUMNS } from '../../src/ingest/spool/format';
import { isContentError } from '../../src/ingest/store-errors';
import { toRow } from '../../src/ingest/to-row';
import { generateDemoData } from '../../src/demo/generate';
import { CUTS } from '../../src/query/sources';
import { loadMigrations, migrate } from '../../src/platform/store/migrate';
import {
  makeBatch,
  makeRecords,
  metricValue,
  openStore,
  postBatch,
  removeDir,
  startApp,
  tempDir,
} from '../support/helpers';

const dirs: string[] = [];
afterAll(() => dirs.forEach(removeDir));

const rowsOf = (b: HandshakeBatch): HandshakeRow[] =>
  b.records.map((r) => toRow(r, { batch: b, country: 'DE', receivedAt: Date.now(), isRegisteredSite: () => false }));

/** A frame as releases before segment headers wrote it: `batchId[\tformat]\n` + rows. */
function legacyFrame(firstLine: string, rows: string, rowCount: number): Buffer {
  const payload = Buffer.from(`${firstLine}\n${rows}`);
  const head = Buffer.alloc(12);
  head.writeUInt32LE(payload.length, 0);
  head.writeUInt32LE(crc32(payload), 4);
  head.writeUInt32LE(rowCount, 8);
  return Buffer.concat([head, payload]);
}

const segFiles = (d: string) =>
  existsSync(d)
    ? readdirSync(d)
        .filter((f) => f.endsWith('.seg'))
        .sort()
    : [];

async function until(cond: () => boolean | Promise<boolean>, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A data folder with a migrated store and an empty spool, its collector stopped (as before an upgrade). */
async function stoppedCollector(): Promise<{ dataDir: string; spoolDir: string }> {
  const first = await startApp({ FLUSH_INTERVAL_MS: '60000' });
  dirs.push(first.dataDir);
  await first.close();
  return { dataDir: first.dataDir, spoolDir: join(first.dataDir, 'spool') };
}

/** What a migration of the new release would add: columns with their defaults. */
const ADDED_COLUMNS = [
  'futureKeyBits UInt16 DEFAULT 0',
  'futureStapled Nullable(Bool)',
  "chainAlgorithms LowCardinality(String) DEFAULT ''",
];

describe('upgrade: spooled segments of an older release replay with their own columns', () => {
  it('headerless TabSeparated (v1 columns), headerless JSONEachRow and a headed segment with fewer columns: every row stored once, new columns at their defaults', async () => {
    const { dataDir, spoolDir } = await stoppedCollector();

    // What the previous release left in its spool (a crash, or a shutdown with the store down).
    const tsvBatches = [makeBatch(makeRecords(4)), makeBatch(makeRecords(6))];
    const jsonBatches = [makeBatch(makeRecords(3)), makeBatch(makeRecords(5))];
    const olderBatches = [
      makeBatch(makeRecords(7, { signatureScheme: 'ecdsa_secp256r1_sha256', certChainLength: 3, rttHint: 50 })),
    ];
    const v1 = tsvEncoder(V1_COLUMNS);
    writeFileSync(
      join(spoolDir, '000000000007.seg'),
      Buffer.concat(
        tsvBatches.map((b) => legacyFrame(`${b.batchId}\tTabSeparated`, rowsOf(b).map(v1).join(''), b.records.length)),
      ),
    );
    writeFileSync(
      join(spoolDir, '000000000008.seg'),
      Buffer.concat(
        jsonBatches.map((b) =>
          legacyFrame(
            b.batchId,
            rowsOf(b)
              .map(
                (r) =>
                  JSON.stringify(Object.fromEntries(V1_COLUMNS.map((c) => [c, r[c as keyof HandshakeRow]]))) + '\n',
              )
              .join(''),
            b.records.length,
          ),
        ),
      ),
    );
    // A release whose registry did not have these columns yet: they are absent from the header and the rows.
    const missing = ['signatureScheme', 'certChainLength', 'rttHint', 'owner'];
    const olderColumns = INSERT_COLUMNS.filter((c) => !missing.includes(c));
    const older = tsvEncoder(olderColumns);
    writeFileSync(
      join(spoolDir, '000000000009.seg'),
      Buffer.concat([
        headerFrame({ format: 'TabSeparated', columns: olderColumns }),
        ...olderBatches.map((b) => entryFrame(b.batchId, rowsOf(b).map(older).join(''), b.records.length)),
      ]),
    );

    // The upgrade: a migration adds columns to the table.
    const store = openStore({ dataDir, clickhouse: null });
    try {
      for (const ddl of ADDED_COLUMNS)
        await store.ingest.command({ query: `ALTER TABLE handshakes ADD COLUMN ${ddl}` });
    } finally {
      await store.close();
    }

    const t = await startApp({ FLUSH_INTERVAL_MS: '50' }, dataDir);
    try {
      const all = [...tsvBatches, ...jsonBatches, ...olderBatches];
      const total = all.reduce((n, b) => n + b.records.length, 0);
      expect(t.app.ingest.recovered).toMatchObject({ segments: 3, rows: total, quarantined: [] });
      // Ingest of the new release goes on meanwhile, with today's columns.
      const fresh = makeBatch(makeRecords(2));
      expect((await postBatch(t.app, fresh)).statusCode).toBe(202);
      await t.app.ingest.flush();
      expect(segFiles(spoolDir)).toEqual([]);
      expect(segFiles(join(spoolDir, QUARANTINE_DIR))).toEqual([]);

      const stored = await batchRows(
        t,
        `groupUniqArray(futureKeyBits) AS bits, groupUniqArray(futureStapled) AS stapled,
         groupUniqArray(chainAlgorithms) AS algs, groupUniqArray(signatureScheme) AS sig, groupUniqArray(certChainLength) AS chain,
         groupUniqArray(rttHint) AS rtt, groupUniqArray(owner) AS owner, groupUniqArray(clientToken) AS tokens`,
      );
      for (const b of [...all, fresh]) {
        const row = stored.get(b.batchId)!;
        expect(row, b.batchId).toBeDefined();
        // Exactly once: as many rows as the batch had records, each client token once.
        expect(Number(row.n)).toBe(b.records.length);
        expect((row.tokens as string[]).sort()).toEqual(b.records.map((r) => r.clientToken).sort());
        // The columns the upgrade added hold their defaults (groupUniqArray skips NULL: [] means all NULL).
        expect(row.bits).toEqual([0]);
        expect(row.stapled).toEqual([]);
        expect(row.algs).toEqual(['']);
        // Nobody's own runs: a segment without the column replays with its default, as does a batch without a token.
        expect(row.owner).toEqual([0]);
      }
      expect(stored.size).toBe(all.length + 1);
      // The headed segment's missing columns took the table defaults, not a neighbour's value.
      const o = stored.get(olderBatches[0]!.batchId)!;
      expect(o).toMatchObject({ sig: [''], chain: [], rtt: [], owner: [0] });
      // The legacy segments carried them: stored as sent.
      expect(stored.get(tsvBatches[0]!.batchId)!.sig).toEqual([rowsOf(tsvBatches[0]!)[0]!.signatureScheme]);
      // The replayed batches stay duplicates for the clients that resend them.
      expect((await postBatch(t.app, jsonBatches[1]!)).json()).toEqual({ accepted: 0, duplicate: true });
    } finally {
      await t.close();
    }
  });
});

describe('upgrade across migration 0009 (crypto columns)', () => {
  /** The columns 0009 added; the release before it wrote every other registry column. */
  const CRYPTO_COLUMNS = ['certKeyType', 'certKeyBits', 'certChainBytes', 'ocspStapled', 'ech', 'cryptoSource'];

  it('a spool written before the migration replays after it: rows stored once, the crypto columns unknown; new records keep theirs', async () => {
    // A store at the release before 0009, its collector stopped with a segment in the spool.
    const dataDir = tempDir('tlsrum-upgrade-0009-');
    dirs.push(dataDir);
    const spoolDir = join(dataDir, 'spool');
    mkdirSync(spoolDir, { recursive: true });
    const before = openStore({ dataDir, clickhouse: null });
    try {
      expect(
        await migrate(
          before.ingest,
          loadMigrations().filter((m) => m.version < 9),
        ),
      ).not.toContain(9);
    } finally {
      await before.close();
    }
    const olderColumns = INSERT_COLUMNS.filter((c) => !CRYPTO_COLUMNS.includes(c));
    expect(olderColumns.length).toBe(INSERT_COLUMNS.length - CRYPTO_COLUMNS.length);
    const spooled = [
      makeBatch(makeRecords(5, { group: 'X25519', cipher: 'TLS_AES_128_GCM_SHA256', certChainLength: 2 })),
      makeBatch(makeRecords(3)),
    ];
    const older = tsvEncoder(olderColumns);
    writeFileSync(
      join(spoolDir, '000000000004.seg'),
      Buffer.concat([
        headerFrame({ format: 'TabSeparated', columns: olderColumns }),
        ...spooled.map((b) => entryFrame(b.batchId, rowsOf(b).map(older).join(''), b.records.length)),
      ]),
    );

    // The upgrade: the new release migrates (0009) at start-up, then replays the spool.
    const t = await startApp({ FLUSH_INTERVAL_MS: '50' }, dataDir);
    try {
      expect(t.app.ingest.recovered).toMatchObject({ segments: 1, rows: 8, quarantined: [] });
      const fresh = makeBatch(
        makeRecords(2, {
          certKeyType: 'ecdsa',
          certKeyBits: 256,
          certChainBytes: 2345,
          ocspStapled: true,
          ech: false,
          group: 'X25519MLKEM768',
        }),
      );
      expect((await postBatch(t.app, fresh)).statusCode).toBe(202);
      await t.app.ingest.flush();
      await until(async () => (await perBatch(t)).size === 3);
      const stored = await batchRows(
        t,
        `groupUniqArray(certKeyType) AS keyType, groupUniqArray(certKeyBits) AS bits,
         groupUniqArray(certChainBytes) AS bytes, groupUniqArray(ocspStapled) AS stapled, groupUniqArray(ech) AS ech,
         groupUniqArray(cryptoSource) AS src, groupUniqArray(keyExchangeGroup) AS grp`,
      );
      // Spooled before the migration: stored once, the new columns at their defaults (unknown), the old ones as sent.
      expect(stored.get(spooled[0]!.batchId)).toMatchObject({
        n: 5,
        keyType: [''],
        bits: [],
        bytes: [],
        stapled: [],
        ech: [],
        src: [''],
        grp: ['X25519'],
      });
      expect(stored.get(spooled[1]!.batchId)).toMatchObject({ n: 3, keyType: [''], bits: [], src: [''] });
      // Written after it: every crypto field kept, and where it came from.
      expect(stored.get(fresh.batchId)).toMatchObject({
        n: 2,
        keyType: ['ecdsa'],
        bits: [256],
        bytes: [2345],
        stapled: [true],
        ech: [false],
        src: ['observed'],
      });
      expect(segFiles(spoolDir)).toEqual([]);
    } finally {
      await t.close();
    }
  });
});

describe('upgrade to the rollup cuts (migration 0011): stored rows and a spool written before both reach them', () => {
  it('a folder at 0010 with rows and a spooled segment: after the upgrade every cut counts every counted row once', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const before = openStore({ dataDir: dir, clickhouse: null });
    try {
      await migrate(
        before.ingest,
        loadMigrations().filter((m) => m.version < 11),
      );
      await generateDemoData(before.ingest, { records: 3_000, days: 3, seed: 11 });
    } finally {
      await before.close();
    }
    // What the release before left in its spool: a segment with its columns (today's: 0011 adds none).
    const spoolDir = join(dir, 'spool');
    mkdirSync(spoolDir, { recursive: true });
    const spooled = [makeBatch(makeRecords(5)), makeBatch(makeRecords(8))];
    const encode = tsvEncoder(INSERT_COLUMNS);
    writeFileSync(
      join(spoolDir, '000000000003.seg'),
      Buffer.concat([
        headerFrame({ format: 'TabSeparated', columns: INSERT_COLUMNS }),
        ...spooled.map((b) => entryFrame(b.batchId, rowsOf(b).map(encode).join(''), b.records.length)),
      ]),
    );

    const t = await startApp({ FLUSH_INTERVAL_MS: '50' }, dir);
    try {
      expect(t.app.ingest.recovered).toMatchObject({ segments: 1, rows: 13, quarantined: [] });
      await t.app.ingest.flush();
      const counted = await t.app.store.query.query({
        query: 'SELECT count() AS n FROM handshakes WHERE implausible = 0 AND capped = 0',
        format: 'JSONEachRow',
      });
      const n = Number((await counted.json<{ n: number }>())[0]!.n);
      expect(n).toBe(3_013);
      const rs = await t.app.store.query.query({
        query: 'SELECT cut, sum(records) AS records FROM handshakes_cuts GROUP BY cut ORDER BY cut',
        format: 'JSONEachRow',
      });
      const perCut = Object.fromEntries(
        (await rs.json<{ cut: number; records: number }>()).map((r) => [Number(r.cut), Number(r.records)]),
      );
      expect(perCut).toEqual(
        Object.fromEntries(
          CUTS.filter((c) => c.table === 'handshakes_cuts').map((c) => [Number(c.where!.replace('cut = ', '')), n]),
        ),
      );
    } finally {
      await t.close();
    }
  });
});

describe('upgrade to the site counts (migration 0024): every site together counts the sites behind each group', () => {
  /** Per all-sites cut that counts its sites: the groups where its count differs from its per-site twin's. */
  async function disagreements(store: ReturnType<typeof openStore>): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const all of CUTS.filter((c) => c.siteCounts && c.sites === 'all')) {
      const one = CUTS.find((c) => c.sites === 'one' && c.table === all.table && String(c.cut) === String(all.cut));
      // 0027's and 0028's hourly cuts of every site have no per-site twin: their counts are checked in store.test.ts.
      if (!one) continue;
      const [table] = await (
        await store.query.query({
          query:
            'SELECT sorting_key AS keys FROM system.tables WHERE database = currentDatabase() AND name = {t:String}',
          query_params: { t: all.table },
          format: 'JSONEachRow',
        })
      ).json<{ keys: string }>();
      const k = table!.keys
        .split(', ')
        .filter((c) => c !== 'cut' && c !== 'site')
        .join(', ');
      const rs = await store.query.query({
        query: `SELECT count() AS groups, countIf(a != b) AS differ, sum(b) AS sites FROM
                  (SELECT ${k}, uniqUpToMerge(99)(sites) AS a FROM ${all.table} WHERE ${all.where} GROUP BY ${k}) AS x
                  FULL JOIN (SELECT ${k}, uniqExactIf(site, site != '') AS b FROM ${one.table} WHERE ${one.where} GROUP BY ${k}) AS y
                  USING (${k})`,
        format: 'JSONEachRow',
      });
      const [r] = await rs.json<{ groups: number; differ: number; sites: number }>();
      // The check can fail: groups exist and some hold registered sites.
      expect(Number(r!.groups), all.name).toBeGreaterThan(0);
      expect(Number(r!.sites), all.name).toBeGreaterThan(0);
      out[all.name] = Number(r!.differ);
    }
    expect(Object.keys(out).length).toBeGreaterThanOrEqual(8);
    return out;
  }

  it('rows stored before the migration get their count from the cuts of one site each; rows stored after, from the views', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const store = openStore({ dataDir: dir, clickhouse: null });
    try {
      await migrate(
        store.ingest,
        loadMigrations().filter((m) => m.version < 24),
      );
      await generateDemoData(store.ingest, { records: 3_000, days: 3, seed: 24 });
      // Up to 0024 only: its second run below is what a crash before its record leads to.
      expect(
        await migrate(
          store.ingest,
          loadMigrations().filter((m) => m.version <= 24),
        ),
      ).toEqual([24]);
      const none = (d: Record<string, number>) => Object.fromEntries(Object.keys(d).map((k) => [k, 0]));
      const before = await disagreements(store);
      expect(before).toEqual(none(before));
      // And again with rows the views wrote, beside the derived ones, and the migration run a second time.
      await generateDemoData(store.ingest, { records: 2_000, days: 3, seed: 25 });
      for (const m of loadMigrations().filter((x) => x.version === 24))
        for (const statement of m.statements) await store.ingest.command({ query: statement });
      const after = await disagreements(store);
      expect(after).toEqual(none(after));
    } finally {
      await store.close();
    }
  });
});

describe('quarantine: a segment the store refuses for its content does not stall ingest', () => {
  it('is quarantined after SPOOL_QUARANTINE_AFTER_TRIES tries while later segments are stored and ingest answers 202; list, replay, drop', async () => {
    const { dataDir, spoolDir } = await stoppedCollector();
    const quarantineDir = join(spoolDir, QUARANTINE_DIR);

    // The oldest segment: whole frames with good checksums, rows the store cannot parse.
    const bad = makeBatch(makeRecords(2));
    const header = headerFrame({ format: 'TabSeparated', columns: INSERT_COLUMNS });
    writeFileSync(
      join(spoolDir, '000000000003.seg'),
      Buffer.concat([header, entryFrame(bad.batchId, 'not a row\tat all\n', 1)]),
    );
    // A later segment, fine.
    const good = makeBatch(makeRecords(5));
    const encode = tsvEncoder(INSERT_COLUMNS);
    writeFileSync(
      join(spoolDir, '000000000004.seg'),
      Buffer.concat([header, entryFrame(good.batchId, rowsOf(good).map(encode).join(''), 5)]),
    );

    const t = await startApp({ FLUSH_INTERVAL_MS: '50', SPOOL_QUARANTINE_AFTER_TRIES: '3' }, dataDir);
    try {
      // Ingest answers 202 all along: the refused segment waits in line only for its tries.
      const posted: HandshakeBatch[] = [];
      for (let i = 0; i < 5; i++) {
        const b = makeBatch(makeRecords(3));
        posted.push(b);
        expect((await postBatch(t.app, b)).statusCode).toBe(202);
      }
      await until(() => segFiles(quarantineDir).length === 1 && t.app.ingest.size === 0);
      for (let i = 0; i < 3; i++) {
        const b = makeBatch(makeRecords(3));
        posted.push(b);
        expect((await postBatch(t.app, b)).statusCode).toBe(202);
      }
      await t.app.ingest.flush();

      const counts = await perBatch(t);
      for (const b of [good, ...posted]) expect(counts.get(b.batchId), b.batchId).toBe(b.records.length);
      expect(counts.has(bad.batchId)).toBe(false);
      expect(segFiles(quarantineDir)).toEqual(['000000000003.seg']);
      const reason = JSON.parse(readFileSync(join(quarantineDir, '000000000003.json'), 'utf8'));
      expect(reason).toMatchObject({ tries: 3 });
      expect(reason.error).toMatch(/^CANNOT_PARSE_/);
      expect(t.logs()).toContain('moved to the quarantine');
      expect(metricValue((await t.app.inject({ url: '/metrics' })).body, 'tlsrum_spool_quarantined_segments')).toBe(1);
      expect(t.app.ingest.flusher.consecutiveFailures).toBe(0);

      // The operator's view, while the collector runs.
      const out: string[] = [];
      const env = { SPOOL_DIR: spoolDir };
      expect(await main(['spool', 'list'], env, (s) => out.push(s))).toBe(0);
      expect(out.join('')).toMatch(/000000000003 {2}1 rows in 1 batches, \d+ bytes, quarantined \S+ after 3 tries/);
      expect(out.join('')).toContain(`columns (TabSeparated): ${INSERT_COLUMNS.join(', ')}`);

      // Replay: the running collector takes it in, the store refuses it again, back in the quarantine.
      expect(await main(['spool', 'replay', '000000000003'], env, () => {})).toBe(0);
      expect(segFiles(quarantineDir)).toEqual([]);
      await until(() => segFiles(quarantineDir).length === 1 && t.app.ingest.size === 0, 30_000);
      expect(t.logs()).toContain('replaying segments put back from the quarantine');
      expect((await postBatch(t.app, makeBatch(makeRecords(1)))).statusCode).toBe(202);

      // Drop: gone, recorded, the gauge back to 0.
      const [id] = segFiles(quarantineDir).map((f) => f.replace(/\.seg$/, ''));
      expect(await main(['spool', 'drop', id!], env, () => {})).toBe(0);
      expect(segFiles(quarantineDir)).toEqual([]);
      expect(readFileSync(join(quarantineDir, 'dropped.log'), 'utf8')).toContain(bad.batchId.toLowerCase());
      expect(metricValue((await t.app.inject({ url: '/metrics' })).body, 'tlsrum_spool_quarantined_segments')).toBe(0);
    } finally {
      await t.close();
    }
  });

  it('a segment refused for a column the table lacks is replayed once the column exists: batches resent meanwhile are stored once', async () => {
    const { spoolDir } = await stoppedCollector();
    const quarantineDir = join(spoolDir, QUARANTINE_DIR);
    // Written by a newer release (a column this store does not have yet): NO_SUCH_COLUMN_IN_TABLE.
    const [a, b] = [makeBatch(makeRecords(3)), makeBatch(makeRecords(4))];
    const encode = tsvEncoder(INSERT_COLUMNS);
    const withBits = (batch: HandshakeBatch) =>
      rowsOf(batch)
        .map((r) => encode(r).replace(/\n$/, '\t2048\n'))
        .join('');
    writeFileSync(
      join(spoolDir, '000000000003.seg'),
      Buffer.concat([
        headerFrame({ format: 'TabSeparated', columns: [...INSERT_COLUMNS, 'futureKeyBits'] }),
        entryFrame(a.batchId, withBits(a), 3),
        entryFrame(b.batchId, withBits(b), 4),
      ]),
    );
    const first = await startApp({ FLUSH_INTERVAL_MS: '50', SPOOL_QUARANTINE_AFTER_TRIES: '2' }, join(spoolDir, '..'));
    await until(() => segFiles(quarantineDir).length === 1);
    expect(JSON.parse(readFileSync(join(quarantineDir, '000000000003.json'), 'utf8')).error).toMatch(
      /^NO_SUCH_COLUMN_IN_TABLE/,
    );
    // While this collector runs, a resend of a quarantined batch is a duplicate (its rows are kept).
    expect((await postBatch(first.app, a)).json()).toEqual({ accepted: 0, duplicate: true });
    await first.close();
    // After a restart the client's resend is stored.
    const t = await startApp({ FLUSH_INTERVAL_MS: '50', SPOOL_QUARANTINE_AFTER_TRIES: '2' }, join(spoolDir, '..'));
    try {
      expect((await postBatch(t.app, a)).json()).toEqual({ accepted: 3 });
      await t.app.ingest.flush();
      // The operator adds the column (the upgrade's migration) and puts the segment back.
      await t.app.store.query.command({ query: 'ALTER TABLE handshakes ADD COLUMN futureKeyBits UInt16 DEFAULT 0' });
      expect(await main(['spool', 'replay', '--all'], { SPOOL_DIR: spoolDir }, () => {})).toBe(0);
      await until(
        async () =>
          segFiles(quarantineDir).length === 0 && t.app.ingest.size === 0 && (await perBatch(t)).has(b.batchId),
        30_000,
      );
      const counts = await perBatch(t);
      expect(counts.get(a.batchId)).toBe(3);
      expect(counts.get(b.batchId)).toBe(4);
      const rs = await t.app.store.query.query({
        query: `SELECT groupUniqArray(futureKeyBits) AS bits FROM handshakes WHERE batchId = '${b.batchId}'`,
        format: 'JSONEachRow',
      });
      expect((await rs.json<{ bits: number[] }>())[0]!.bits).toEqual([2048]);
    } finally {
      await t.close();
    }
  });

  it('a segment this release cannot read at all is quarantined at start-up, not deleted and not fatal', async () => {
    const { dataDir, spoolDir } = await stoppedCollector();
    writeFileSync(
      join(spoolDir, '000000000005.seg'),
      legacyFrame('00000000-0000-4000-8000-000000000001\tParquet', 'x\n', 1),
    );
    const t = await startApp({}, dataDir);
    try {
      expect(t.app.ingest.recovered.quarantined).toEqual(['000000000005']);
      expect(segFiles(join(spoolDir, QUARANTINE_DIR))).toEqual(['000000000005.seg']);
      expect((await postBatch(t.app, makeBatch(makeRecords(2)))).statusCode).toBe(202);
    } finally {
      await t.close();
    }
  });

  it('an outage is never taken for bad content: connection refused and a missing table are retried, not quarantined', async () => {
    const client = createClient({
      url: 'http://127.0.0.1:1',
      request_timeout: 2000,
      log: { level: ClickHouseLogLevel.OFF },
    });
    const refused = await client.command({ query: 'SELECT 1' }).catch((e: unknown) => e);
    await client.close();
    expect(isContentError(refused)).toBe(false);
    const d = tempDir('tlsrum-upgrade-');
    dirs.push(d);
    mkdirSync(d, { recursive: true });
    const store = openStore({ dataDir: d, clickhouse: null });
    try {
      const noTable = await store.ingest
        .command({ query: 'INSERT INTO handshakes (ts) VALUES (1)' })
        .catch((e: unknown) => e);
      expect(isContentError(noTable)).toBe(false);
      await store.ingest.command({ query: 'CREATE TABLE t (n UInt8) ENGINE = Memory' });
      const parse = await store.ingest.command({ query: "INSERT INTO t VALUES ('abc')" }).catch((e: unknown) => e);
      expect(isContentError(parse)).toBe(true);
      const noColumn = await store.ingest.command({ query: 'INSERT INTO t (m) VALUES (1)' }).catch((e: unknown) => e);
      expect(isContentError(noColumn)).toBe(true);
    } finally {
      await store.close();
    }
  });
});

type RunningApp = { app: Awaited<ReturnType<typeof startApp>>['app'] };

async function perBatch(t: RunningApp): Promise<Map<string, number>> {
  return new Map([...(await batchRows(t))].map(([id, r]) => [id, Number(r.n)]));
}

/** Per stored batch: its row count `n` and the `aggregates` (SQL select items over its rows). */
async function batchRows(
  t: RunningApp,
  aggregates?: string,
): Promise<Map<string, Record<string, unknown> & { id: string; n: number }>> {
  const rs = await t.app.store.query.query({
    query: `SELECT toString(batchId) AS id, count() AS n${aggregates ? `, ${aggregates}` : ''} FROM handshakes GROUP BY batchId`,
    format: 'JSONEachRow',
  });
  return new Map((await rs.json<Record<string, unknown> & { id: string; n: number }>()).map((r) => [r.id, r]));
}
