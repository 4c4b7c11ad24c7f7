/**
 * The site beacon on the collector: `GET /beacon.js` (cached, revalidated, loadable cross-site) and
 * `POST /v1/beacon` (a page view of a registered site from its own origin becomes `source: 'page'`
 * records with a client identity the collector derives), and every bad input refused with a 4xx that
 * names the reason, with nothing stored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EntryTuple } from '@tlsrum/shared';
import { buildServedScript } from '@tlsrum/beacon/build';
import { countRows, removeDir, startApp, storedRows, type TestApp } from '../support/helpers';

const ADMIN = 'admin-token-for-the-beacon-test';
const SITE = 'shop.example';
const UA_CHROMIUM =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36';

/** A new TLS 1.3 connection over h2: 40 ms TCP, 40 ms TLS (one round trip), the site's Server-Timing saying a full handshake. */
const entry = (host = SITE, overrides: Partial<Record<number, unknown>> = {}): EntryTuple => {
  const t = [host, 'navigation', 'h2', 'TLSv1.3 .', 0, 1, 2, 5, 5, 45, 85, 86, 130] as EntryTuple;
  for (const [i, v] of Object.entries(overrides)) (t as unknown[])[Number(i)] = v;
  return t;
};
const pageView = (entries: unknown[] = [entry()], site = SITE) => ({
  v: 1,
  site,
  timeOrigin: Date.now() - 5_000,
  entries,
});

function postBeacon(
  t: TestApp,
  body: unknown,
  o: { origin?: string | null; ip?: string; type?: string; ua?: string } = {},
) {
  const headers: Record<string, string> = {
    'content-type': o.type ?? 'text/plain;charset=UTF-8',
    'user-agent': o.ua ?? UA_CHROMIUM,
    'sec-ch-ua': '"Chromium";v="156", "Not-A.Brand";v="24"',
    'sec-ch-ua-platform': '"Linux"',
  };
  if (o.origin !== null) headers.origin = o.origin ?? `https://${SITE}`;
  return t.app.inject({
    method: 'POST',
    url: '/v1/beacon',
    remoteAddress: o.ip ?? '198.51.100.7',
    headers,
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

describe('the site beacon on the collector', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ ADMIN_TOKEN: ADMIN });
    const admin = { authorization: `Bearer ${ADMIN}` };
    expect(
      (await t.app.inject({ method: 'POST', url: '/v1/sites', payload: { hostname: SITE }, headers: admin }))
        .statusCode,
    ).toBe(201);
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: `/v1/sites/${SITE}/probe-targets`,
          payload: { hostname: 'static.shop.example' },
          headers: admin,
        })
      ).statusCode,
    ).toBe(201);
    expect(
      (await t.app.inject({ method: 'POST', url: '/v1/sites', payload: { hostname: 'other.example' }, headers: admin }))
        .statusCode,
    ).toBe(201);
  });
  afterAll(async () => {
    await t?.close();
    if (t) removeDir(t.dataDir);
  });

  describe('GET /beacon.js', () => {
    it('serves the built script, cached briefly, with a content-hash ETag and loadable by other sites', async () => {
      const script = await buildServedScript();
      const res = await t.app.inject({ url: '/beacon.js' });
      expect(res.statusCode).toBe(200);
      expect(res.body).toBe(script.code);
      expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
      expect(res.headers.etag).toBe(script.etag);
      expect(res.headers['cache-control']).toBe('public, max-age=300');
      expect(res.headers['cross-origin-resource-policy']).toBe('cross-origin');
      expect(res.headers['access-control-allow-origin']).toBe('*');
    });

    it('answers a revalidation with the current ETag with 304 and no body, an old one with the script', async () => {
      const { headers } = await t.app.inject({ url: '/beacon.js' });
      const fresh = await t.app.inject({ url: '/beacon.js', headers: { 'if-none-match': String(headers.etag) } });
      expect(fresh.statusCode).toBe(304);
      expect(fresh.body).toBe('');
      const stale = await t.app.inject({ url: '/beacon.js', headers: { 'if-none-match': '"an-older-version"' } });
      expect(stale.statusCode).toBe(200);
    });

    it('leaves every other answer same-site', async () => {
      for (const url of ['/healthz', '/v1/about'])
        expect((await t.app.inject({ url })).headers['cross-origin-resource-policy']).toBe('same-site');
    });
  });

  describe('POST /v1/beacon', () => {
    it("stores a page view of the site's own origin as page records, classified by the shared classifier", async () => {
      const before = await countRows(t.app.store);
      const res = await postBeacon(
        t,
        pageView([
          entry(),
          entry('static.shop.example', { 1: 'resource', 3: null }),
          entry('cdn.thirdparty.example', { 1: 'resource' }),
          entry(SITE, { 1: 'resource', 9: 0 }),
        ]),
      );
      expect(res.statusCode, res.body).toBe(202);
      expect(res.json()).toEqual({ accepted: 2, leftOut: { otherHost: 1, notNew: 1 } });
      const rows = await storedRows(t.app, "source = 'page'");
      expect(rows.length).toBe(before + 2);
      const nav = rows.find((r) => r.entryType === 'navigation')!;
      expect(nav).toMatchObject({
        site: SITE,
        source: 'page',
        protocol: 'h2',
        transport: 'tcp',
        tlsVersion: '1.3',
        tlsVersionSource: 'server-timing',
        resumed: false,
        resumedSource: 'server-timing',
        handshakeClass: '1rtt',
        tcp: 40,
        tls: 40,
        browser: 'chromium',
        browserMajor: 156,
        os: 'linux',
        agentName: '@tlsrum/beacon',
      });
      // The static host's connection belongs to the site too; without Server-Timing its version is not known from it.
      const res2 = rows.find((r) => r.entryType === 'resource')!;
      expect(res2).toMatchObject({ site: SITE, tlsVersionSource: expect.not.stringMatching(/server-timing/) });
      expect(String(nav.clientToken)).toMatch(/^[A-Za-z0-9_-]{22}$/);
      // Neither the address nor anything of it in the clear is stored.
      expect(JSON.stringify(rows)).not.toContain('198.51.100.7');
    });

    it("stores a Firefox navigation whose connection opened a millisecond before the page's time origin", async () => {
      // As Firefox reports it on a busy machine: the fetch and its connection timestamped before the origin.
      // The second with its TCP handshake taking 1 ms, so that its TLS handshake starts at the origin itself (0).
      for (const tlsStart of [-1, 0]) {
        const view = pageView([entry(SITE, { 4: 0, 5: -3, 6: -1, 7: -1, 8: -1, 9: tlsStart, 10: 13, 11: 14, 12: 15 })]);
        const res = await postBeacon(t, view, {
          ua: 'Mozilla/5.0 (X11; Linux x86_64; rv:153.0) Gecko/20100101 Firefox/153.0',
        });
        expect(res.statusCode, res.body).toBe(202);
        expect(res.json()).toEqual({ accepted: 1, leftOut: { otherHost: 0, notNew: 0 } });
      }
      const rows = await storedRows(t.app, "source = 'page' AND browser = 'firefox'");
      expect(rows.map((r) => [r.tcp, r.tls]).sort()).toEqual([
        [0, 14],
        [1, 13],
      ]);
      for (const r of rows) expect(r).toMatchObject({ entryType: 'navigation', dns: 0, connect: 14, ttfb: 1 });
    });

    it('takes a page view from a hostname added to the site at once, and refuses one from a hostname removed at once', async () => {
      const admin = { authorization: `Bearer ${ADMIN}` };
      const fromCdn = () =>
        postBeacon(t, pageView([entry('cdn.shop.example')]), {
          origin: 'https://cdn.shop.example',
          ip: '198.51.100.70',
        });
      // The site's hostnames were just read: a refusal now leaves the next re-read seconds away.
      expect((await postBeacon(t, pageView(), { ip: '198.51.100.70' })).statusCode).toBe(202);
      expect((await fromCdn()).statusCode).toBe(403);
      const target = `/v1/sites/${SITE}/probe-targets`;
      const added = await t.app.inject({
        method: 'POST',
        url: target,
        payload: { hostname: 'cdn.shop.example' },
        headers: admin,
      });
      expect(added.statusCode).toBe(201);
      const taken = await fromCdn();
      expect(taken.statusCode, taken.body).toBe(202);
      expect(taken.json()).toMatchObject({ accepted: 1 });
      const removed = await t.app.inject({ method: 'DELETE', url: `${target}/cdn.shop.example`, headers: admin });
      expect(removed.statusCode).toBe(200);
      expect((await fromCdn()).statusCode).toBe(403);
    });

    it('derives one client per address and site: same address one client, another address (or another /64) another', async () => {
      const tokenOf = async (ip: string) => {
        const body = pageView([entry(SITE, { 2: 'h3' })]);
        expect((await postBeacon(t, body, { ip })).statusCode).toBe(202);
        const rows = await storedRows(t.app, "source = 'page' AND protocol = 'h3'");
        return String(rows.at(-1)!.clientToken);
      };
      const a = await tokenOf('2001:db8:1:2::10');
      expect(await tokenOf('2001:db8:1:2::99')).toBe(a);
      expect(await tokenOf('2001:db8:1:3::10')).not.toBe(a);
      const v4 = await tokenOf('192.0.2.1');
      expect(await tokenOf('192.0.2.1')).toBe(v4);
      expect(await tokenOf('192.0.2.2')).not.toBe(v4);
    });

    const refused: Array<
      [string, () => Promise<{ statusCode: number; json: () => { message: string } }>, number, RegExp]
    > = [
      [
        'a page view of an unregistered site',
        () =>
          postBeacon(t, pageView([entry('nowhere.example')], 'nowhere.example'), { origin: 'https://nowhere.example' }),
        403,
        /not registered/,
      ],
      [
        'a page view from a foreign origin',
        () => postBeacon(t, pageView(), { origin: 'https://evil.example' }),
        403,
        /origin "evil.example" is neither site "shop.example"/,
      ],
      [
        "a page view of one registered site from another registered site's origin",
        () => postBeacon(t, pageView(), { origin: 'https://other.example' }),
        403,
        /origin "other.example"/,
      ],
      ['a page view without Origin', () => postBeacon(t, pageView(), { origin: null }), 403, /no Origin header/],
      [
        'a page view from a hidden origin',
        () => postBeacon(t, pageView(), { origin: 'null' }),
        403,
        /hides its origin/,
      ],
      [
        'a page view from a plain-http page',
        () => postBeacon(t, pageView(), { origin: `http://${SITE}` }),
        403,
        /not served over HTTPS/,
      ],
      [
        'a client token in the body',
        () => postBeacon(t, { ...pageView(), clientToken: 'abcdefgh12345678' }),
        400,
        /no client token/,
      ],
      [
        'records with client tokens',
        () => postBeacon(t, { records: [{ clientToken: 'abcdefgh12345678' }] }),
        400,
        /not records with client tokens/,
      ],
      [
        'an unknown field',
        () => postBeacon(t, { ...pageView(), url: 'https://shop.example/cart?id=1' }),
        400,
        /body\/url is not a field/,
      ],
      [
        'an oversized body',
        () => postBeacon(t, JSON.stringify({ ...pageView(), pad: 'x'.repeat(70_000) })),
        413,
        /too large/i,
      ],
      ['a body that is not JSON', () => postBeacon(t, '{"v":1,'), 400, /not valid JSON/],
      ['a JSON body that is not an object', () => postBeacon(t, '[1,2]'), 400, /JSON object/],
      ['a wrong version', () => postBeacon(t, { ...pageView(), v: 2 }), 400, /body\/v/],
      ['a malformed entry', () => postBeacon(t, pageView([[SITE, 'navigation', 'h2']])), 400, /body\/entries\/0/],
      [
        'an entry whose connection starts before its fetch',
        () => postBeacon(t, pageView([entry(SITE, { 8: -5 })])),
        400,
        /body\/entries\/0/,
      ],
      [
        'an entry host that is not a hostname',
        () => postBeacon(t, pageView([entry('https://shop.example/x')])),
        400,
        /body\/entries\/0/,
      ],
      ['no entries', () => postBeacon(t, pageView([])), 400, /body\/entries/],
      [
        'too many entries',
        () => postBeacon(t, pageView(Array.from({ length: 201 }, () => entry()))),
        400,
        /body\/entries/,
      ],
      [
        'a site that is no hostname',
        () => postBeacon(t, pageView([entry()], 'https://shop.example/')),
        400,
        /body\/site/,
      ],
      [
        'a page view whose clock is two days off',
        () =>
          postBeacon(t, {
            ...pageView([entry('static.shop.example', { 3: null }), entry()]),
            timeOrigin: Date.now() - 2 * 86_400_000,
          }),
        400,
        /body\/entries\/0\/ts must be within 24 h/,
      ],
      [
        'JSON sent as application/json',
        () => postBeacon(t, pageView(), { type: 'application/json' }),
        415,
        /text\/plain/,
      ],
    ];
    it.each(refused)('refuses %s, naming the reason, and stores nothing', async (_name, send, status, reason) => {
      await t.app.ingest.flush();
      const before = await countRows(t.app.store);
      const res = await send();
      expect(res.statusCode).toBe(status);
      expect(res.json().message).toMatch(reason);
      await t.app.ingest.flush();
      expect(await countRows(t.app.store)).toBe(before);
      // The collector is unaffected: the next good page view is taken.
      expect((await postBeacon(t, pageView())).statusCode).toBe(202);
    });
  });
});
