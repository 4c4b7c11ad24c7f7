/**
 * Read routes are bounded for everyone who can reach them: a rate limit per address on each route
 * (QUERY_RATE_LIMIT_PER_MINUTE), a default and a maximum range (tighter without a token), a what-if
 * sample no larger than a tokenless reader may cause, and no summary over the whole table.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_RANGE_MS } from '../../src/query/routes/query-context';
import { PUBLIC_MAX_RANGE_MS } from '../../src/query/routes/read-scope';
import { SUMMARY_MAX_RANGE_MS } from '../../src/query/routes/summary';
import { PUBLIC_MAX_LIMIT } from '../../src/whatif/route';
import { makeBatch, makeRecords, postBatch, removeDir, startApp, type TestApp } from '../support/helpers';

const ADMIN = 'admin-token-for-query-bounds';
const DAY = 86_400_000;

describe('query bounds', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ ADMIN_TOKEN: ADMIN, QUERY_RATE_LIMIT_PER_MINUTE: '4', RATE_LIMIT_PER_MINUTE: '0' });
  });
  afterAll(async () => {
    await t.close();
    removeDir(t.dataDir);
  });

  it('answers 429 + Retry-After past QUERY_RATE_LIMIT_PER_MINUTE, per address over all read routes; ingest is not limited by it', async () => {
    const get = (url: string, ip: string) => t.app.inject({ url, remoteAddress: ip });
    for (const url of ['/v1/compare', '/v1/map', '/v1/summary', '/v1/compare'])
      expect((await get(url, '192.0.2.20')).statusCode).toBe(200);
    for (const url of ['/v1/compare', '/v1/summary', '/v1/alerts']) {
      const limited = await get(url, '192.0.2.20');
      expect(limited.statusCode).toBe(429);
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    }
    expect((await get('/v1/compare', '192.0.2.21')).statusCode).toBe(200);
    expect((await get('/healthz', '192.0.2.20')).statusCode).toBe(200);
    for (let i = 0; i < 6; i++)
      expect((await postBatch(t.app, makeBatch(), { ip: '192.0.2.20' })).statusCode).toBe(202);
  });

  it('bounds the range: tighter without a token', async () => {
    const to = Date.now();
    const ask = (span: number, token?: string) =>
      t.app.inject({
        url: `/v1/map?from=${to - span}&to=${to}`,
        remoteAddress: '192.0.2.30',
        headers: token ? { authorization: `Bearer ${token}` } : {},
      });
    const tooLong = await ask(PUBLIC_MAX_RANGE_MS + DAY);
    expect(tooLong.statusCode).toBe(400);
    expect(tooLong.json().message).toContain('without a token');
    expect((await ask(PUBLIC_MAX_RANGE_MS + DAY, ADMIN)).statusCode).toBe(200);
    expect((await ask(MAX_RANGE_MS + DAY, ADMIN)).statusCode).toBe(400);
  });

  it("bounds the what-if's sample: at most PUBLIC_MAX_LIMIT connections without a token, more with one", async () => {
    const ask = (limit: number, token?: string) =>
      t.app.inject({
        url: `/v1/whatif?limit=${limit}`,
        remoteAddress: '192.0.2.31',
        headers: token ? { authorization: `Bearer ${token}` } : {},
      });
    const tooMany = await ask(PUBLIC_MAX_LIMIT + 1);
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json().message).toContain(`without a token the what-if analyses at most ${PUBLIC_MAX_LIMIT}`);
    expect((await ask(PUBLIC_MAX_LIMIT)).statusCode).toBe(200);
    expect((await ask(500_000, ADMIN)).statusCode).toBe(200);
    expect((await ask(500_001, ADMIN)).statusCode).toBe(400);
  });

  it('the summary reads the last 7 days unless asked (whole days, from the rollup), at most SUMMARY_MAX_RANGE_MS', async () => {
    await postBatch(t.app, makeBatch(makeRecords(3)), { ip: '192.0.2.40' });
    await t.app.ingest.flush();
    const now = Date.now();
    const summary = await t.app.inject({ url: '/v1/summary', remoteAddress: '192.0.2.41' });
    expect(summary.statusCode).toBe(200);
    expect(summary.json().records).toBeGreaterThan(0);
    // The default range, the collector's own choice, is widened to whole days and read from the rollup.
    const { from, to, table } = summary.json();
    expect([from % DAY, to % DAY, table]).toEqual([0, 0, 'rollup']);
    expect(from).toBeLessThanOrEqual(now - 7 * DAY);
    expect(to).toBeGreaterThanOrEqual(now);
    // A range asked to the millisecond is read as asked, from the raw table.
    const asked = (
      await t.app.inject({ url: `/v1/summary?from=${now - DAY}&to=${now + 1}`, remoteAddress: '192.0.2.41' })
    ).json();
    expect([asked.from, asked.to, asked.table, asked.records]).toEqual([
      now - DAY,
      now + 1,
      'raw',
      summary.json().records,
    ]);
    // Records older than the default range are not in the default answer.
    expect(
      (await t.app.inject({ url: `/v1/summary?to=${now - 8 * DAY}`, remoteAddress: '192.0.2.41' })).json().records,
    ).toBe(0);
    const tooLong = await t.app.inject({
      url: `/v1/summary?from=${now - SUMMARY_MAX_RANGE_MS - DAY}&to=${now}`,
      remoteAddress: '192.0.2.41',
    });
    expect(tooLong.statusCode).toBe(400);
  });
});
