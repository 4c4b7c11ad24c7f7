/**
 * `pnpm collector spool list|replay|drop` on real spool folders (no store: these commands never open it).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli';
import { moveToQuarantine, QUARANTINE_DIR, REPLAY_DIR } from '../../src/ingest/spool/quarantine';
import { Spool } from '../../src/ingest/spool/spool';
import { entryFrame, headerFrame } from '../../src/ingest/spool/format';
import { removeDir, tempDir } from '../support/helpers';

const dirs: string[] = [];
afterAll(() => dirs.forEach(removeDir));
const id = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
const files = (d: string) => (existsSync(d) ? readdirSync(d).sort() : []);

/** A spool folder with two quarantined segments (one readable, one not) and the CLI pointed at it. */
function setup() {
  const spoolDir = tempDir('tlsrum-spool-cli-');
  dirs.push(spoolDir);
  mkdirSync(spoolDir, { recursive: true });
  const readable = join(spoolDir, '000000000011.seg');
  writeFileSync(
    readable,
    Buffer.concat([
      headerFrame({ format: 'TabSeparated', columns: ['ts', 'site'] }),
      entryFrame(id(1), '1\ta\n2\tb\n', 2),
      entryFrame(id(2), '3\tc\n', 1),
    ]),
  );
  moveToQuarantine(spoolDir, readable, {
    error: 'CANNOT_PARSE_TEXT: Cannot parse input',
    firstErrorAt: Date.UTC(2026, 10, 24, 3),
    tries: 5,
    lastError: 'CANNOT_PARSE_TEXT: again',
  });
  const unreadable = join(spoolDir, '000000000012.seg');
  writeFileSync(
    unreadable,
    Buffer.concat([
      headerFrame({ format: 'TabSeparated', columns: ['ts'] }),
      entryFrame(`${id(3)}\tParquet`, 'x\n', 1),
    ]),
  );
  moveToQuarantine(spoolDir, unreadable, {
    error: 'spool entry carries a format in a segment with a header',
    firstErrorAt: Date.now(),
    tries: 0,
  });
  let text = '';
  const run = async (...args: string[]) => {
    text = '';
    const code = await main(['spool', ...args], { SPOOL_DIR: spoolDir }, (s) => (text += s));
    return { code, text };
  };
  return { spoolDir, quarantineDir: join(spoolDir, QUARANTINE_DIR), replayDir: join(spoolDir, REPLAY_DIR), run };
}

describe('pnpm collector spool', () => {
  it('list: id, rows, bytes, columns, first error and when, for each quarantined segment', async () => {
    const { run } = setup();
    const { code, text } = await run('list');
    expect(code).toBe(0);
    expect(text).toMatch(/^000000000011 {2}3 rows in 2 batches, \d+ bytes, quarantined 20\d\d-\S+Z after 5 tries$/m);
    expect(text).toContain('  columns (TabSeparated): ts, site');
    expect(text).toContain('  first error (2026-11-24T03:00:00.000Z): CANNOT_PARSE_TEXT: Cannot parse input');
    expect(text).toContain('  last error: CANNOT_PARSE_TEXT: again');
    expect(text).toMatch(/^000000000012 {2}unreadable \(.*format.*\), \d+ bytes/m);
    const json = JSON.parse((await run('list', '--json')).text);
    expect(json).toHaveLength(2);
    expect(json[0]).toMatchObject({
      id: '000000000011',
      rows: 2 + 1,
      batches: 2,
      format: 'TabSeparated',
      columns: ['ts', 'site'],
      tries: 5,
    });
    expect(json[1]).toMatchObject({ id: '000000000012', rows: null });
  });

  it('list on a spool without a quarantine says so', async () => {
    const d = tempDir('tlsrum-spool-cli-');
    dirs.push(d);
    let text = '';
    expect(await main(['spool', 'list', '--spool-dir', d], {}, (s) => (text += s))).toBe(0);
    expect(text).toBe(`no quarantined segments in ${join(d, QUARANTINE_DIR)}\n`);
  });

  it('replay: moves the segment to replay/ for the collector, where a spool takes it in as a new segment', async () => {
    const { spoolDir, quarantineDir, replayDir, run } = setup();
    const { code, text } = await run('replay', '000000000011');
    expect(code).toBe(0);
    expect(text).toContain('put back for replay: 000000000011 (3 rows)');
    expect(text).toContain('within 5 s');
    expect(files(quarantineDir).filter((f) => f.startsWith('000000000011'))).toEqual([]);
    expect(files(replayDir)).toEqual(['000000000011.seg']);
    // What the collector does at its next start (or poll): the segment rejoins the spool, numbered after the quarantine's.
    const spool = new Spool({
      dir: spoolDir,
      maxBytes: 1 << 20,
      maxRows: 1000,
      segmentMaxRows: 100,
      segmentMaxAgeMs: 1000,
      layout: { format: 'TabSeparated', columns: ['ts'] },
    });
    const rec = spool.recover();
    expect(rec).toMatchObject({ segments: 1, rows: 3, batchIds: [id(1), id(2)], quarantined: [] });
    expect(spool.peek()!.seq).toBe(13);
    expect((await Spool.read(spool.peek()!)).columns).toEqual(['ts', 'site']);
    expect(files(replayDir)).toEqual([]);
    await spool.close();
  });

  it('a segment put back that holds no whole entry goes back to the quarantine, never deleted', async () => {
    const { spoolDir, quarantineDir, replayDir } = setup();
    mkdirSync(replayDir, { recursive: true });
    writeFileSync(join(replayDir, '000000000020.seg'), headerFrame({ format: 'TabSeparated', columns: ['ts'] }));
    const spool = new Spool({
      dir: spoolDir,
      maxBytes: 1 << 20,
      maxRows: 1000,
      segmentMaxRows: 100,
      segmentMaxAgeMs: 1000,
      layout: { format: 'TabSeparated', columns: ['ts'] },
    });
    expect(spool.recover()).toMatchObject({ segments: 0, quarantined: ['000000000020'], replayErrors: [] });
    expect(files(quarantineDir)).toContain('000000000020.seg');
    expect(files(replayDir)).toEqual([]);
    await spool.close();
  });

  it('drop: deletes only what it is told to, and records it in quarantine/dropped.log', async () => {
    const { quarantineDir, run } = setup();
    const { code, text } = await run('drop', '000000000011');
    expect(code).toBe(0);
    expect(text).toContain('dropped: 000000000011 (3 rows, first error: CANNOT_PARSE_TEXT: Cannot parse input)');
    expect(files(quarantineDir)).toEqual(['000000000012.json', '000000000012.seg', 'dropped.log']);
    const log = JSON.parse(readFileSync(join(quarantineDir, 'dropped.log'), 'utf8').trim());
    expect(log).toMatchObject({
      id: '000000000011',
      rows: 3,
      batchIds: [id(1), id(2)],
      error: 'CANNOT_PARSE_TEXT: Cannot parse input',
    });
    expect(typeof log.droppedAt).toBe('string');
    expect((await run('drop', '--all')).text).toContain('dropped: 000000000012 (unreadable');
    expect(files(quarantineDir)).toEqual(['dropped.log']);
  });

  it('refuses what it cannot do exactly: no id, an unknown id (nothing moved), ids with --all, an unknown action', async () => {
    const { quarantineDir, run } = setup();
    const before = files(quarantineDir);
    expect((await run('drop')).code).toBe(2);
    expect((await run('replay', '000000000011', '--all')).code).toBe(2);
    expect((await run('purge')).code).toBe(2);
    expect((await run()).code).toBe(2);
    await expect(run('drop', '000000000011', '000000000099')).rejects.toThrow(/no quarantined segment 000000000099/);
    await expect(run('replay', '../spool')).rejects.toThrow(/no quarantined segment/);
    expect(files(quarantineDir)).toEqual(before);
  });
});
