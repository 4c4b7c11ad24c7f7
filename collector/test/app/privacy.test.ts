/**
 * Privacy by construction, checked end to end: after a full run (valid, invalid and hostile requests,
 * registered and unregistered sites, IPv4/IPv6 clients, forwarded-for headers, URLs smuggled in
 * unknown fields and query strings, a flush and a restart), no client address, URL path, query string
 * or unregistered hostname is in any column of any table, in the spool, or in any log line.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeBatch, makeRecords, postBatch, removeDir, startApp, type TestApp } from '../support/helpers';

const IPS = ['203.0.113.77', '2001:db8::beef:77', '198.51.100.23', '192.0.2.199'];
const SECRETS = [
  '/private/account/page',
  'token=SECRETQ1',
  'SECRETQ2',
  'secret-unregistered.example.org',
  'SECRETFIELD',
];

async function everyTable(t: TestApp): Promise<string> {
  const tables = await (
    await t.app.store.query.query({
      query: 'SELECT name FROM system.tables WHERE database = currentDatabase()',
      format: 'JSONEachRow',
    })
  ).json<{ name: string }>();
  expect(tables.map((x) => x.name)).toContain('handshakes');
  let all = '';
  for (const { name } of tables) {
    // Table names come from the store's own catalogue, not from input.
    const rs = await t.app.store.query.query({
      query: `SELECT * FROM \`${name.replace(/`/g, '')}\``,
      format: 'JSONEachRow',
    });
    all += `${name}: ${await rs.text()}\n`;
  }
  return all;
}

function spoolFiles(dataDir: string): string {
  const dir = join(dataDir, 'spool');
  return readdirSync(dir)
    .map((f) => readFileSync(join(dir, f)).toString('latin1'))
    .join('\n');
}

function expectClean(text: string, where: string) {
  for (const needle of [...IPS, ...SECRETS]) expect(text.includes(needle), `${needle} found in ${where}`).toBe(false);
}

describe('privacy', () => {
  it('no IP, URL path, query or unregistered hostname in any table, the spool, or the logs', async () => {
    const t = await startApp({
      LOG_LEVEL: 'trace',
      FLUSH_INTERVAL_MS: '60000',
      ADMIN_TOKEN: 'admin-token-for-tests-0001',
    });
    const { dataDir } = t;
    let logs = '';
    try {
      await t.app.sites.register('www.example.com');
      const smuggled = (records: ReturnType<typeof makeRecords>) =>
        records.map((r) => ({
          ...r,
          url: `https://www.example.com${SECRETS[0]}?${SECRETS[1]}`,
          name: SECRETS[4],
          ip: IPS[0],
        }));
      for (const ip of IPS) {
        const batch = makeBatch(makeRecords(3));
        const res = await postBatch(
          t.app,
          { ...batch, records: smuggled(batch.records), referrer: `https://x${SECRETS[0]}` },
          {
            ip,
            gzip: true,
            headers: { 'x-forwarded-for': IPS[3]!, referer: `https://www.example.com${SECRETS[0]}?${SECRETS[1]}` },
          },
        );
        expect(res.statusCode).toBe(202);
      }
      // An unregistered site: stored as '' (not registered), never by name.
      expect((await postBatch(t.app, makeBatch(makeRecords(2, { site: SECRETS[3] })), { ip: IPS[1] })).statusCode).toBe(
        202,
      );
      // Refused requests: a path in the site, a query in the site, bad JSON carrying secrets, unknown routes.
      expect(
        (await postBatch(t.app, makeBatch(makeRecords(1, { site: `www.example.com${SECRETS[0]}` })), { ip: IPS[2] }))
          .statusCode,
      ).toBe(400);
      expect(
        (await postBatch(t.app, makeBatch(makeRecords(1, { site: `www.example.com?${SECRETS[1]}` })), { ip: IPS[2] }))
          .statusCode,
      ).toBe(400);
      expect((await postBatch(t.app, `{"v":1,"x":"${SECRETS[2]}"`, { ip: IPS[2] })).statusCode).toBe(400);
      expect(
        (await t.app.inject({ url: `/v1/nope${SECRETS[0]}?${SECRETS[1]}`, remoteAddress: IPS[0] })).statusCode,
      ).toBe(404);
      expect(
        (await t.app.inject({ url: `/v1/summary?from=0&${SECRETS[1]}`, remoteAddress: IPS[1] })).statusCode,
      ).toBeLessThan(500);
      expect((await t.app.inject({ url: `/metrics?${SECRETS[2]}`, remoteAddress: IPS[1] })).statusCode).toBe(200);

      // Before the flush the rows are in the spool: checked there too.
      expectClean(spoolFiles(dataDir), 'the spool');
      await t.app.ingest.flush();
      const stored = await everyTable(t);
      expect(stored).toMatch(/"site":""/);
      expect(stored).toMatch(/"site":"www\.example\.com"/);
      expectClean(stored, 'the store');
      expectClean(spoolFiles(dataDir), 'the spool journal');
    } finally {
      await t.close();
      logs = t.logs();
    }
    // A restart replays nothing and logs nothing more about clients.
    const again = await startApp({ LOG_LEVEL: 'trace' }, dataDir);
    try {
      expectClean(await everyTable(again), 'the store after a restart');
    } finally {
      await again.close();
      removeDir(dataDir);
    }
    expect(logs).toContain('"route":"/v1/handshakes"');
    expect(logs.split('\n').length).toBeGreaterThan(10);
    expectClean(logs, 'the logs');
    expectClean(again.logs(), 'the logs after a restart');
  });
});
