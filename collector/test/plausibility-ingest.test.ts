/** Plausibility at ingest: a record no honest producer can send refuses its batch with 400 naming the rule; nothing of it is stored. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countRows, makeBatch, makeRecords, postBatch, removeDir, startApp, type TestApp } from './helpers';

describe('plausibility at ingest', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(async () => {
    await t.close();
    removeDir(t.dataDir);
  });

  it.each([
    ['tls-within-connect', { tls: 5000 }],
    ['phases-add-up', { tcp: 10, tls: 10, connect: 100 }],
    ['transport-matches-protocol', { protocol: 'h3' as const, transport: 'tcp' as const }],
  ])('refuses a batch with a record breaking %s, naming the rule and the record', async (rule, change) => {
    const records = makeRecords(3);
    records[1] = { ...records[1]!, ...change };
    const res = await postBatch(t.app, makeBatch(records));
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toContain(`body/records/1 is implausible (rule ${rule})`);
  });

  it('stores none of a refused batch, and takes the honest one', async () => {
    await t.app.ingest.flush();
    expect(await countRows(t.app.store)).toBe(0);
    expect((await postBatch(t.app, makeBatch(makeRecords(3)))).statusCode).toBe(202);
  });
});
