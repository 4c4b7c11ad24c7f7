/** Plausibility at ingest: a record no honest producer can send refuses its batch with 400 naming the rule; nothing of it is stored. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flagNames } from '@tlsrum/shared';
import {
  countRows,
  makeBatch,
  makeRecords,
  postBatch,
  removeDir,
  startApp,
  storedRows,
  type TestApp,
} from '../support/helpers';

describe('plausibility at ingest', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ TOKENS_PER_ADDRESS: '2', MIN_CLIENTS_PER_CELL: '1' });
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

  // Flagged records: stored, marked, left out of figures.
  it('a record failing a flag rule is accepted and stored with its flag, but not counted', async () => {
    const [ok, odd] = makeRecords(2, { protocol: 'http/1.1' }, 1);
    expect((await postBatch(t.app, makeBatch([ok!, { ...odd!, rttHint: 212 }]), { ip: '192.0.2.50' })).statusCode).toBe(
      202,
    );
    const rows = await storedRows(t.app, "protocol = 'http/1.1'");
    expect(rows.map((r) => flagNames(Number(r.implausible)))).toEqual(
      expect.arrayContaining([[], ['rtt-hint-plausible']]),
    );
    const summary = (await t.app.inject({ url: '/v1/summary' })).json();
    expect(summary.byProtocol['http/1.1']).toEqual({ records: 1 });
  });

  it('tokens past TOKENS_PER_ADDRESS from one address are stored flagged tokens-per-address; another address is not affected', async () => {
    const from = (token: string) => makeRecords(1, { protocol: 'other', clientToken: token }, 1);
    for (const token of ['token-one-aaaa', 'token-two-bbbb', 'token-three-cc', 'token-one-aaaa']) {
      expect((await postBatch(t.app, makeBatch(from(token)), { ip: '198.51.100.9' })).statusCode).toBe(202);
    }
    expect((await postBatch(t.app, makeBatch(from('token-four-ddd')), { ip: '198.51.100.10' })).statusCode).toBe(202);
    const rows = await storedRows(t.app, "protocol = 'other'");
    const flagged = rows
      .filter((r) => flagNames(Number(r.implausible)).includes('tokens-per-address'))
      .map((r) => r.clientToken);
    expect(flagged).toEqual(['token-three-cc']);
    expect(rows).toHaveLength(5);
    // Nothing in the store or the logs holds the address.
    expect(JSON.stringify(rows)).not.toContain('198.51.100');
    expect(t.logs()).not.toContain('198.51.100');
    expect((await t.app.inject({ url: '/v1/summary' })).json().byProtocol.other).toEqual({ records: 4 });
  });
});
