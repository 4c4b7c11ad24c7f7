/**
 * The write-ahead spool on its own (real files, no store) and through the app (real embedded store):
 * group commit, sealing, torn-tail recovery, replay at start-up, duplicates, the cap.
 */
import { appendFileSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import type { HandshakeBatch } from '@tlsrum/shared';
import { toRow } from '../../src/ingest/to-row';
import { afterAll, describe, expect, it } from 'vitest';
import { Spool, SpoolFullError } from '../../src/ingest/spool/spool';
import { insertStatement, parseSegment, type SegmentLayout } from '../../src/ingest/spool/format';
import {
  countRows,
  makeBatch,
  makeRecords,
  openStore,
  postBatch,
  removeDir,
  startApp,
  tempDir,
  withApp,
} from '../support/helpers';

const dirs: string[] = [];
afterAll(() => dirs.forEach(removeDir));
const dir = () => {
  const d = tempDir('tlsrum-spool-');
  dirs.push(d);
  return d;
};

const rowsText = (n: number, tag = 'r') =>
  Array.from({ length: n }, (_, i) => JSON.stringify({ tag, i }) + '\n').join('');
const id = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
const segments = (d: string) =>
  readdirSync(d)
    .filter((f) => f.endsWith('.seg'))
    .sort();

// These tests look at the files, not the store: rows are JSON lines, by key.
const layout: SegmentLayout = { format: 'JSONEachRow', columns: null };

function spool(d: string, over: Partial<ConstructorParameters<typeof Spool>[0]> = {}) {
  const s = new Spool({
    dir: d,
    maxBytes: 64 * 1024 * 1024,
    maxRows: 1_000_000,
    segmentMaxRows: 100,
    segmentMaxAgeMs: 60_000,
    layout,
    ...over,
  });
  s.recover();
  return s;
}

describe('spool', () => {
  it('group commit: 200 concurrent appends share a handful of fdatasyncs, all durable when they resolve', async () => {
    const d = dir();
    const s = spool(d, { segmentMaxRows: 10_000 });
    await Promise.all(Array.from({ length: 200 }, (_, i) => s.append(Spool.frame(id(i), rowsText(2), 2), 2)));
    // The first round takes one append; everything that arrived meanwhile goes in the next one(s).
    expect(s.fsyncs).toBeGreaterThanOrEqual(1);
    expect(s.fsyncs).toBeLessThan(20);
    expect(s.rows).toBe(400);
    const [seg] = segments(d);
    const parsed = parseSegment(readFileSync(join(d, seg!)));
    expect(parsed.content.rowCount).toBe(400);
    expect(new Set(parsed.content.batchIds).size).toBe(200);
    await s.close();
  });

  it('seals a segment at segmentMaxRows and when its first entry is segmentMaxAgeMs old', async () => {
    const d = dir();
    const s = spool(d, { segmentMaxRows: 10, segmentMaxAgeMs: 50 });
    const sealed: number[] = [];
    s.onSealed = (seg) => sealed.push(seg.rows);
    for (let i = 0; i < 3; i++) await s.append(Spool.frame(id(i), rowsText(4), 4), 4);
    // 4 + 4 fit, the third would make 12 > 10: a new segment.
    expect(sealed).toEqual([8]);
    await new Promise((r) => setTimeout(r, 200));
    expect(sealed).toEqual([8, 4]);
    expect(s.sealedCount).toBe(2);
    expect(s.oldestAgeMs()).toBeGreaterThan(0);
    await s.remove(s.peek()!);
    await s.remove(s.peek()!);
    expect(s.rows).toBe(0);
    expect(s.bytes).toBe(0);
    expect(segments(d)).toEqual([]);
    await s.close();
  });

  it('refuses appends over the byte cap and the row cap, and takes them again once there is room', async () => {
    const d = dir();
    const frame = Spool.frame(id(1), rowsText(5), 5);
    const s = spool(d, { maxBytes: frame.length * 2, segmentMaxRows: 5 });
    await s.append(frame, 5);
    await s.append(Spool.frame(id(2), rowsText(5), 5), 5);
    expect(s.accepts(5, frame.length)).toBe(false);
    await expect(s.append(Spool.frame(id(3), rowsText(5), 5), 5)).rejects.toBeInstanceOf(SpoolFullError);
    await s.remove(s.peek()!);
    expect(s.accepts(5, frame.length)).toBe(true);
    await s.close();
    const r = spool(dir(), { maxRows: 3 });
    expect(r.accepts(4, 10)).toBe(false);
    await expect(r.append(Spool.frame(id(4), rowsText(4), 4), 4)).rejects.toBeInstanceOf(SpoolFullError);
    await r.close();
  });

  it('recovers after a crash: complete entries kept, a torn tail cut off, ids returned for the duplicate check', async () => {
    const d = dir();
    const s = spool(d, { segmentMaxRows: 1000 });
    for (let i = 0; i < 3; i++) await s.append(Spool.frame(id(i), rowsText(3, `b${i}`), 3), 3);
    // A crash: the process dies without closing; the last entry was half written.
    const [seg] = segments(d);
    const path = join(d, seg!);
    const good = statSync(path).size;
    appendFileSync(path, Spool.frame(id(9), rowsText(3), 3).subarray(0, 20));
    const again = new Spool({
      dir: d,
      maxBytes: 1 << 30,
      maxRows: 1e6,
      segmentMaxRows: 1000,
      segmentMaxAgeMs: 1000,
      layout,
    });
    const rec = again.recover();
    expect(rec).toMatchObject({ segments: 1, rows: 9, batchIds: [id(0), id(1), id(2)], tornBytes: 20 });
    expect(statSync(path).size).toBe(good);
    const content = await Spool.read(again.peek()!);
    expect(
      content.rows
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).tag),
    ).toEqual(['b0', 'b0', 'b0', 'b1', 'b1', 'b1', 'b2', 'b2', 'b2']);
    // New segments continue after the recovered ones.
    await again.append(Spool.frame(id(5), rowsText(1), 1), 1);
    expect(segments(d)).toHaveLength(2);
    await again.close();
  });

  it('a corrupted entry (bad checksum) ends the segment there', () => {
    const a = Spool.frame(id(1), rowsText(2), 2);
    const b = Spool.frame(id(2), rowsText(2), 2);
    b.writeUInt8(b.readUInt8(b.length - 2) ^ 0xff, b.length - 2);
    const parsed = parseSegment(Buffer.concat([a, b]));
    expect(parsed.validBytes).toBe(a.length);
    expect(parsed.content.batchIds).toEqual([id(1)]);
  });
});

describe('spool in the collector (real embedded store)', () => {
  it('replays segments left by a crashed run at start-up, and their batch ids stay duplicates', async () => {
    const t = await startApp({ FLUSH_INTERVAL_MS: '60000' });
    const batches = [makeBatch(makeRecords(7)), makeBatch(makeRecords(11))];
    try {
      for (const b of batches) expect((await postBatch(t.app, b, { gzip: true })).statusCode).toBe(202);
      expect(await countRows(t.app.store)).toBe(0);
      // Simulate kill -9: copy the spool as it is now, close the app, put the copy back.
      const spoolDir = join(t.dataDir, 'spool');
      const saved = segments(spoolDir).map((f) => [f, readFileSync(join(spoolDir, f))] as const);
      expect(saved.length).toBe(1);
      await t.close();
      expect(await countOffline(t.dataDir)).toBe(18); // the clean close drained it
      // Now the copy: as if the process had died before the flush. Replaying must not store it twice.
      for (const [f, buf] of saved) writeFileSync(join(spoolDir, f), buf);
      const again = await startApp({ FLUSH_INTERVAL_MS: '50' }, t.dataDir);
      expect(again.app.ingest.recovered).toMatchObject({ segments: 1, rows: 18 });
      await again.app.ingest.flush();
      expect(await countRows(again.app.store)).toBe(18);
      expect(segments(spoolDir)).toEqual([]);
      for (const b of batches)
        expect((await postBatch(again.app, b, { gzip: true })).json()).toEqual({ accepted: 0, duplicate: true });
      await again.close();
    } finally {
      removeDir(t.dataDir);
    }
  });

  it('replays a segment written before the format marker (JSONEachRow entries) as JSONEachRow', async () => {
    const t = await startApp({ FLUSH_INTERVAL_MS: '60000' });
    const spoolDir = join(t.dataDir, 'spool');
    const batches = [makeBatch(makeRecords(4)), makeBatch(makeRecords(3))];
    try {
      await t.close();
      // The frame an older collector wrote: "batchId\n" + JSONEachRow, no format after the id.
      const ctx = (b: HandshakeBatch) => ({
        batch: b,
        country: 'DE',
        receivedAt: Date.now(),
        isRegisteredSite: () => false,
      });
      const legacy = batches.map((b) => {
        const payload = Buffer.from(
          `${b.batchId}\n${b.records.map((r) => JSON.stringify(toRow(r, ctx(b))) + '\n').join('')}`,
        );
        const head = Buffer.alloc(12);
        head.writeUInt32LE(payload.length, 0);
        head.writeUInt32LE(crc32(payload), 4);
        head.writeUInt32LE(b.records.length, 8);
        return Buffer.concat([head, payload]);
      });
      writeFileSync(join(spoolDir, '000000000900.seg'), Buffer.concat(legacy));
      expect(parseSegment(readFileSync(join(spoolDir, '000000000900.seg'))).content).toMatchObject({
        format: 'JSONEachRow',
        rowCount: 7,
      });
      const again = await startApp({ FLUSH_INTERVAL_MS: '50' }, t.dataDir);
      await again.app.ingest.flush();
      expect(await countRows(again.app.store)).toBe(7);
      expect(segments(spoolDir)).toEqual([]);
      // New entries are TabSeparated, and stored the same way.
      expect((await postBatch(again.app, makeBatch(makeRecords(5)))).statusCode).toBe(202);
      await again.app.ingest.spool.requestSeal();
      expect((await Spool.read(again.app.ingest.spool.peek()!)).format).toBe('TabSeparated');
      await again.app.ingest.flush();
      expect(await countRows(again.app.store)).toBe(12);
      await again.close();
    } finally {
      removeDir(t.dataDir);
    }
  });

  it('the batch journal keeps flushed batch ids across a restart', async () => {
    const t = await startApp({ FLUSH_INTERVAL_MS: '50' });
    const batch = makeBatch(makeRecords(3));
    try {
      expect((await postBatch(t.app, batch)).statusCode).toBe(202);
      await t.app.ingest.flush();
      await t.close();
      const again = await startApp({}, t.dataDir);
      expect((await postBatch(again.app, batch)).json()).toEqual({ accepted: 0, duplicate: true });
      expect(await countRows(again.app.store)).toBe(3);
      await again.close();
    } finally {
      removeDir(t.dataDir);
    }
  });

  it('the same batch sent 5 times concurrently is written once, acknowledged 5 times, stored once', async () => {
    await withApp({ FLUSH_INTERVAL_MS: '60000' }, async (t) => {
      const batch = makeBatch(makeRecords(20));
      const res = await Promise.all(Array.from({ length: 5 }, () => postBatch(t.app, batch, { gzip: true })));
      expect(res.map((r) => r.statusCode)).toEqual([202, 202, 202, 202, 202]);
      expect(res.map((r) => r.json().accepted).sort()).toEqual([0, 0, 0, 0, 20]);
      expect(t.app.ingest.size).toBe(20);
      await t.app.ingest.flush();
      expect(await countRows(t.app.store)).toBe(20);
    });
  });

  it('a segment inserted twice (crash after the insert, before the delete) is stored once: deduplication token', async () => {
    await withApp({ FLUSH_INTERVAL_MS: '60000' }, async (t) => {
      await postBatch(t.app, makeBatch(makeRecords(5)));
      await postBatch(t.app, makeBatch(makeRecords(6)));
      await t.app.ingest.spool.requestSeal();
      const seg = t.app.ingest.spool.peek()!;
      const content = await Spool.read(seg);
      const { dedupToken } = await import('../../src/ingest/flusher');
      // The same insert the flusher makes, three times, as a retry after lost acknowledgements would.
      for (let i = 0; i < 3; i++) {
        await t.app.store.ingest.command({
          query: `${insertStatement(content)}\n${content.rows}`,
          clickhouse_settings: { insert_deduplication_token: dedupToken(content.batchIds) },
        });
      }
      await t.app.ingest.flush();
      expect(await countRows(t.app.store)).toBe(11);
    });
  });
});

describe('replay after a crash does not trust the deduplication token alone', () => {
  it("a replayed segment whose token is in the store's deduplication log without its rows is still stored, once", async () => {
    // The state kill -9 during an insert once left behind: the segment's token recorded, its rows not.
    const t = await startApp({ FLUSH_INTERVAL_MS: '60000' });
    const batches = [makeBatch(makeRecords(5)), makeBatch(makeRecords(6))];
    const ids = batches.map((b) => b.batchId);
    const ofBatches = `batchId IN ('${ids.join("','")}')`;
    try {
      for (const b of batches) expect((await postBatch(t.app, b)).statusCode).toBe(202);
      await t.app.ingest.spool.requestSeal();
      const spoolDir = join(t.dataDir, 'spool');
      const saved = segments(spoolDir).map((f) => [f, readFileSync(join(spoolDir, f))] as const);
      const content = await Spool.read(t.app.ingest.spool.peek()!);
      const { dedupToken } = await import('../../src/ingest/flusher');
      // The segment inserted under its token, then its rows removed: the token stays in the log.
      await t.app.store.ingest.command({
        query: `${insertStatement(content)}\n${content.rows}`,
        clickhouse_settings: { insert_deduplication_token: dedupToken(content.batchIds) },
      });
      await t.app.store.ingest.command({
        query: `ALTER TABLE handshakes DELETE WHERE ${ofBatches}`,
        clickhouse_settings: { mutations_sync: '2' },
      });
      await t.close(); // its drain inserts the segment under the same token: the store drops it
      expect(await countOffline(t.dataDir, ofBatches)).toBe(0);
      // The crash left the segment on disk: it is replayed at the next start, checked, and stored.
      for (const [f, buf] of saved) writeFileSync(join(spoolDir, f), buf);
      const again = await startApp({ FLUSH_INTERVAL_MS: '50' }, t.dataDir);
      await again.app.ingest.flush();
      await again.close();
      expect(await countOffline(t.dataDir, ofBatches)).toBe(11);
      // Replayed once more (a crash after that insert, before the delete): nothing stored twice.
      for (const [f, buf] of saved) writeFileSync(join(spoolDir, f), buf);
      const third = await startApp({ FLUSH_INTERVAL_MS: '50' }, t.dataDir);
      await third.app.ingest.flush();
      await third.close();
      expect(await countOffline(t.dataDir, ofBatches)).toBe(11);
    } finally {
      removeDir(t.dataDir);
    }
  });
});

async function countOffline(dataDir: string, where?: string): Promise<number> {
  const store = openStore({ dataDir, clickhouse: null });
  try {
    if (where === undefined) return await countRows(store);
    const rs = await store.query.query({
      query: `SELECT count() AS n FROM handshakes WHERE ${where}`,
      format: 'JSONEachRow',
    });
    return Number((await rs.json<{ n: number }>())[0]!.n);
  } finally {
    await store.close();
  }
}
