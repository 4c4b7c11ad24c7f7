/**
 * A flood through the site beacon, on a real embedded store: 40 honest clients browse a site; one
 * address posts 100 page views of 200 new connections each (20 000 records) with a 5-second TLS phase and
 * the site's own Server-Timing, as the beacon would send them. The collector derives one client from one
 * address, so the per-client cap holds it like one extension token: no cell's p75 moves by more than 5 %.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EntryTuple } from '@tlsrum/shared';
import { BUCKET_GROWTH } from '../../src/query/histogram';
import { generate, insertRows } from '../support/generate';
import { removeDir, startApp, type TestApp } from '../support/helpers';

const ADMIN = 'admin-token-for-the-beacon-flood';
const HOUR = 3_600_000;
const NOW = Date.now();
const SITE = 'shop.example';

/** 5 s of TLS against a 40 ms TCP phase, a full TLS 1.3 handshake by the site's own account: plausible, class unknown. */
const FLOOD_ENTRY: EntryTuple = [SITE, 'resource', 'h2', 'TLSv1.3 .', 0, 1, 2, 2, 10, 50, 5050, 5051, 5111];

describe('one address flooding 20 000 records through the beacon', () => {
  let t: TestApp;
  const urls = ['stack,mode', 'tlsVersion', 'protocol', 'handshakeClass', 'resumed', 'browser']
    .flatMap((d) => [`/v1/compare?dimensions=${d}`, `/v1/phases?dimensions=${d}`])
    .concat(['/v1/map', '/v1/timeseries'])
    .map((u) => `${u}${u.includes('?') ? '&' : '?'}from=${NOW - 2 * HOUR}&to=${NOW + 60_000}&site=${SITE}&table=raw`);
  const rollupUrls = ['stack,mode', 'tlsVersion', 'resumed'].map(
    (d) => `/v1/compare?dimensions=${d}&from=${NOW - 10 * 24 * HOUR}&to=${NOW}&site=${SITE}`,
  );
  const ask = async () => {
    const all = new Map<string, number>();
    for (const url of [...urls, ...rollupUrls]) {
      const res = await t.app.inject({ url, headers: { authorization: `Bearer ${ADMIN}` } });
      expect(res.statusCode, url).toBe(200);
      for (const c of res.json<{
        cells: Array<{ key: object; t?: number; suppressed?: boolean } & Record<string, unknown>>;
      }>().cells) {
        if (c.suppressed) continue;
        for (const [metric, v] of Object.entries(c)) {
          if (v && typeof v === 'object' && 'p75' in v)
            all.set(`${url} ${JSON.stringify(c.key)} t=${c.t ?? ''} ${metric}`, (v as { p75: number }).p75);
        }
      }
    }
    return all;
  };
  let before = new Map<string, number>();

  beforeAll(async () => {
    t = await startApp({ ADMIN_TOKEN: ADMIN, MIN_CLIENTS_PER_CELL: '10' });
    await t.app.inject({
      method: 'POST',
      url: '/v1/sites',
      payload: { hostname: SITE },
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    await insertRows(
      t.app.store.ingest,
      generate({
        site: SITE,
        country: 'DE',
        from: NOW - HOUR,
        to: NOW - 60_000,
        records: 1000,
        clients: 40,
        rtt: 40,
        fullTls: 80,
        resumedTls: 40,
        resumedShare: 0.5,
        tls13Share: 0.7,
        h3Share: 0.2,
        seed: 7,
      }),
    );
    before = await ask();
    const body = JSON.stringify({
      v: 1,
      site: SITE,
      timeOrigin: NOW - 30 * 60_000,
      entries: Array.from({ length: 200 }, () => FLOOD_ENTRY),
    });
    for (let i = 0; i < 100; i++) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/v1/beacon',
        remoteAddress: '203.0.113.66',
        headers: {
          'content-type': 'text/plain;charset=UTF-8',
          origin: `https://${SITE}`,
          'user-agent':
            'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36',
        },
        payload: body,
      });
      expect(res.statusCode, res.body).toBe(202);
    }
    await t.app.ingest.flush();
  }, 180_000);
  afterAll(async () => {
    await t?.close();
    if (t) removeDir(t.dataDir);
  });

  it('is stored whole, as one client', async () => {
    const rs = await t.app.store.query.query({
      query: "SELECT count() AS n, uniqExact(clientToken) AS clients FROM handshakes WHERE source = 'page'",
      format: 'JSONEachRow',
    });
    expect((await rs.json<{ n: number; clients: number }>())[0]).toEqual({ n: 20_000, clients: 1 });
  });

  it('moves no p75 of any cell by more than 5 % (the rollup: by more than one of its 5 % buckets)', async () => {
    const after = await ask();
    expect(before.size).toBeGreaterThan(30);
    const allowed = (k: string, v: number) =>
      rollupUrls.some((u) => k.startsWith(u)) ? Math.max(0.05 * v, (BUCKET_GROWTH - 1) * v + 0.1) : 0.05 * v;
    const moved = [...before].flatMap(([k, v]) => {
      const w = after.get(k);
      return w === undefined || Math.abs(w - v) > allowed(k, v) ? [`${k}: ${v} → ${w}`] : [];
    });
    expect(moved).toEqual([]);
  });

  it('without the cap, the same flood does move the figures (the test can fail)', async () => {
    const rs = await t.app.store.query.query({
      query: `SELECT quantileExact(0.75)(tls) AS p75 FROM handshakes WHERE site = {site:String} AND tlsVersion = '1.3'`,
      query_params: { site: SITE },
      format: 'JSONEachRow',
    });
    expect(Number((await rs.json<{ p75: number }>())[0]!.p75)).toBe(5000);
  });
});
