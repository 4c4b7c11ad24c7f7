/**
 * Fault tests on the real collector process and its real embedded store, loopback only, each bounded:
 * (a) kill -9 under full-speed load, restart: every acknowledged record stored exactly once;
 * (b) the store's data folder read-only under load until the spool is full: 202s continue into the spool,
 *     then 503 at the cap, and after recovery every acknowledged record arrives exactly once;
 * (c) the same batch sent 5 times concurrently over HTTP is stored once;
 * (d) the spool's own folder read-only: 503, nothing acknowledged that was not written;
 * (e) a graceful shutdown while the store fails: bounded, the spool kept and replayed at the next start.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeBatch, makeRecords, openStore, postBatch, removeDir, startApp, freshStoreDir } from '../support/helpers';
import {
  loadGenerator,
  resend,
  scrape,
  sleep,
  startCollector,
  stopCollector,
  waitForEmptySpool,
  type Collector,
} from '../support/process';

const dirs: string[] = [];
const procs: Collector[] = [];
afterAll(async () => {
  for (const c of procs) await stopCollector(c, 'SIGKILL');
  for (const d of dirs) {
    for (const sub of ['store', 'spool']) {
      try {
        setReadOnly(join(d, sub), false);
      } catch {
        // Already writable, or gone.
      }
    }
    removeDir(d);
  }
});

const isRoot = process.getuid?.() === 0;

/**
 * Makes a folder tree read-only for real: as root (who ignores permissions) with the immutable
 * attribute, otherwise by removing write permission. Does nothing if the folder does not exist.
 */
function setReadOnly(dir: string, on: boolean): void {
  // The running store creates and removes temporary part folders (tmp_insert_…) while the tree is
  // walked: a path that vanished mid-walk fails the walk (`chattr -R` exits 1, seen in CI). Walk again:
  // each pass leaves more of the tree read-only, so new temporary folders soon cannot appear.
  for (let attempt = 1; ; attempt++) {
    try {
      statSync(dir);
    } catch {
      return;
    }
    try {
      return walkReadOnly(dir, on);
    } catch (err) {
      const vanished =
        (err as NodeJS.ErrnoException).code === 'ENOENT' || /No such file or directory/.test(String(err));
      if (!vanished || attempt >= 10) throw err;
    }
  }
}

function walkReadOnly(dir: string, on: boolean): void {
  if (isRoot) {
    execFileSync('chattr', ['-R', on ? '+i' : '-i', dir], { stdio: 'pipe' });
    return;
  }
  const walk = (d: string) => {
    chmodSync(d, on ? 0o555 : 0o755);
    for (const e of readdirSync(d, { withFileTypes: true })) if (e.isDirectory()) walk(join(d, e.name));
  };
  walk(dir);
}

/** Rows per batch id in the store, read by opening the data folder after the collector exited. */
async function storedPerBatch(dataDir: string): Promise<Map<string, number>> {
  const store = openStore({ dataDir, clickhouse: null });
  try {
    const rs = await store.query.query({
      query: 'SELECT toString(batchId) AS id, count() AS n FROM handshakes GROUP BY batchId',
      format: 'JSONEachRow',
    });
    return new Map((await rs.json<{ id: string; n: number }>()).map((r) => [r.id, Number(r.n)]));
  } finally {
    await store.close();
  }
}

/** Every acknowledged batch stored with all its records, and no batch stored more than once. */
function expectExactlyOnce(acknowledged: Map<string, number>, stored: Map<string, number>, recordsPerBatch: number) {
  const missing = [...acknowledged].filter(([id, n]) => (stored.get(id) ?? 0) !== n);
  expect(missing).toEqual([]);
  const duplicated = [...stored].filter(([, n]) => n !== recordsPerBatch);
  expect(duplicated).toEqual([]);
}

describe('fault tests (real process, real embedded store)', () => {
  it('(a) kill -9 while clients send at full speed: after a restart every acknowledged record is stored exactly once', async () => {
    const dataDir = freshStoreDir('tlsrum-fault-a-');
    dirs.push(dataDir);
    const RECORDS = 20;
    const first = await startCollector({ DATA_DIR: dataDir, FLUSH_INTERVAL_MS: '200' });
    procs.push(first);
    const load = loadGenerator(first.url, { workers: 12, records: RECORDS });
    // Long enough for segments to be flushed, being flushed and still open at the kill.
    while (load.stats.acknowledged.size < 1500) await sleep(100);
    first.proc.kill('SIGKILL');
    await load.stop();
    expect(first.proc.signalCode ?? (await new Promise((r) => first.proc.once('exit', (_c, s) => r(s))))).toBe(
      'SIGKILL',
    );
    const acknowledged = new Map(load.stats.acknowledged);
    expect(acknowledged.size).toBeGreaterThanOrEqual(1500);

    const second = await startCollector({ DATA_DIR: dataDir, FLUSH_INTERVAL_MS: '200' });
    procs.push(second);
    // A client that never saw its answers resends everything it sent (acknowledged or not): each is
    // answered 202, and nothing is stored twice.
    const all = [...load.stats.sent.values()];
    for (let i = 0; i < all.length; i += 16) {
      const statuses = await Promise.all(all.slice(i, i + 16).map((b) => resend(second.url, b)));
      expect(statuses.every((s) => s === 202)).toBe(true);
    }
    await waitForEmptySpool(second, 30_000);
    expect(await stopCollector(second)).toBe(0);

    const stored = await storedPerBatch(dataDir);
    console.info(
      `(a) acknowledged ${acknowledged.size} batches before kill -9, ${load.stats.sent.size} sent, ${stored.size} stored once each`,
    );
    expectExactlyOnce(acknowledged, stored, RECORDS);
    // Everything sent is stored once: the acknowledged ones from the first run, the rest from the resend.
    expect(stored.size).toBe(load.stats.sent.size);
  }, 300_000);

  it('(b) store read-only under load until the spool is full: 202s go on into the spool, 503 + Retry-After at the cap, then all arrive exactly once', async () => {
    const dataDir = freshStoreDir('tlsrum-fault-b-');
    dirs.push(dataDir);
    const RECORDS = 20;
    const c = await startCollector({
      DATA_DIR: dataDir,
      FLUSH_INTERVAL_MS: '200',
      SPOOL_MAX_BYTES: String(4 * 1024 * 1024),
    });
    procs.push(c);
    const load = loadGenerator(c.url, { workers: 8, records: RECORDS });
    try {
      await sleep(1000);
      setReadOnly(join(dataDir, 'store'), true);
      load.markFault();
      // Read-only until the spool is full (its cap answers 503), and a while longer at the cap.
      const deadline = Date.now() + 120_000;
      const full = async () => ((await scrape(c, 'tlsrum_batches_rejected_total{reason="spool_full"}')) ?? 0) > 0;
      while (!(await full()) && Date.now() < deadline) await sleep(250);
      await sleep(3000);
      setReadOnly(join(dataDir, 'store'), false);
      // The store is back: the flusher's next retry (≤ 8 s backoff) drains the spool while load goes on.
      await sleep(3000);
    } finally {
      setReadOnly(join(dataDir, 'store'), false);
      await load.stop();
    }
    const { stats } = load;
    expect(stats.acceptedAfterMark).toBeGreaterThan(50); // ingest went on while the store failed
    expect(stats.statuses.get(503) ?? 0).toBeGreaterThan(0); // then the spool cap was reached
    expect([...stats.retryAfterSeen].every((s) => Number(s) >= 1)).toBe(true);
    expect(stats.retryAfterSeen.size).toBeGreaterThan(0);
    expect(await scrape(c, 'tlsrum_store_errors_total')).toBeGreaterThan(0);
    expect(await scrape(c, 'tlsrum_batches_rejected_total{reason="spool_full"}')).toBeGreaterThan(0);
    await waitForEmptySpool(c, 30_000);
    expect(await stopCollector(c)).toBe(0);
    console.info(
      `(b) ${stats.acknowledged.size} batches acknowledged, ${stats.acceptedAfterMark} of them while the store was read-only; ` +
        `statuses ${JSON.stringify(Object.fromEntries(stats.statuses))}; Retry-After seen ${[...stats.retryAfterSeen].join(',')}`,
    );
    expectExactlyOnce(stats.acknowledged, await storedPerBatch(dataDir), RECORDS);
  }, 300_000);

  it('(c) the same batch sent 5 times concurrently over HTTP is stored once', async () => {
    const dataDir = freshStoreDir('tlsrum-fault-c-');
    dirs.push(dataDir);
    const c = await startCollector({ DATA_DIR: dataDir });
    procs.push(c);
    const batch = makeBatch(makeRecords(50));
    const statuses = await Promise.all(Array.from({ length: 5 }, () => resend(c.url, batch)));
    expect(statuses).toEqual([202, 202, 202, 202, 202]);
    await waitForEmptySpool(c, 10_000);
    expect(await stopCollector(c)).toBe(0);
    expect(await storedPerBatch(dataDir)).toEqual(new Map([[batch.batchId, 50]]));
  }, 60_000);

  it('(e) SIGTERM while the store is read-only: exits 0 after SHUTDOWN_DRAIN_MS, keeps the spool, replays it at the next start', async () => {
    const dataDir = freshStoreDir('tlsrum-fault-e-');
    dirs.push(dataDir);
    const c = await startCollector({ DATA_DIR: dataDir, FLUSH_INTERVAL_MS: '100', SHUTDOWN_DRAIN_MS: '1500' });
    procs.push(c);
    const batches = Array.from({ length: 10 }, () => makeBatch(makeRecords(25)));
    setReadOnly(join(dataDir, 'store'), true);
    try {
      for (const b of batches) expect(await resend(c.url, b)).toBe(202);
      const started = Date.now();
      expect(await stopCollector(c)).toBe(0);
      expect(Date.now() - started).toBeLessThan(20_000);
      expect(c.output()).toContain('kept in the spool for the next start');
    } finally {
      setReadOnly(join(dataDir, 'store'), false);
    }
    expect(readdirSync(join(dataDir, 'spool')).filter((f) => f.endsWith('.seg')).length).toBeGreaterThan(0);
    const again = await startCollector({ DATA_DIR: dataDir });
    procs.push(again);
    await waitForEmptySpool(again, 30_000);
    for (const b of batches) expect(await resend(again.url, b)).toBe(202); // duplicates now
    expect(await stopCollector(again)).toBe(0);
    expect(await storedPerBatch(dataDir)).toEqual(new Map(batches.map((b) => [b.batchId, 25])));
  }, 90_000);

  it.skipIf(!isRoot)(
    '(d) spool folder read-only (immutable, needs root): 503, and only what was written is acknowledged',
    async () => {
      const t = await startApp({ FLUSH_INTERVAL_MS: '60000' });
      dirs.push(t.dataDir);
      const spoolDir = join(t.dataDir, 'spool');
      try {
        const ok = makeBatch(makeRecords(4));
        expect((await postBatch(t.app, ok)).statusCode).toBe(202);
        setReadOnly(spoolDir, true);
        const refused = makeBatch(makeRecords(4));
        const res = await postBatch(t.app, refused);
        expect(res.statusCode).toBe(503);
        expect(res.headers['retry-after']).toBeDefined();
        setReadOnly(spoolDir, false);
        // The refused batch was not remembered: its resend is taken, once.
        expect((await postBatch(t.app, refused)).json()).toEqual({ accepted: 4 });
        await t.app.ingest.flush();
        const rs = await t.app.store.query.query({
          query: 'SELECT toString(batchId) AS id, count() AS n FROM handshakes GROUP BY id ORDER BY id',
          format: 'JSONEachRow',
        });
        const rows = await rs.json<{ id: string; n: number }>();
        expect(new Map(rows.map((r) => [r.id, Number(r.n)]))).toEqual(
          new Map([
            [ok.batchId, 4],
            [refused.batchId, 4],
          ]),
        );
      } finally {
        setReadOnly(spoolDir, false);
        await t.close();
      }
    },
  );
});
