/**
 * What someone without a token can read or break, one guarantee per block: /metrics names no site,
 * a spoofed X-Forwarded-For entry neither escapes per-address limits nor chooses the country, admin
 * tokens cannot be guessed online, unknown query parameters are refused by name, the alert webhook
 * does not follow redirects, and the connection cap is explicit. docs/integrity.md and SECURITY.md say why.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { rmSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HandshakeRecord } from '@tlsrum/shared';
import { Webhook } from '../../src/alerts/webhook';
import { ClientCapCounter } from '../../src/ingest/client-cap';
import type { RowContext } from '../../src/ingest/columns';
import { toRow } from '../../src/ingest/to-row';
import { adminRoutesNotice, loadConfig } from '../../src/platform/config';
import { generate, insertRows } from '../support/generate';
import {
  makeBatch,
  makeRecords,
  postBatch,
  removeDir,
  startApp,
  storedRows,
  freshStoreDir,
  withApp,
  type TestApp,
} from '../support/helpers';

const ADMIN = 'outsider-test-admin-token-0123456789';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const SITE = 'secret-shop.example';
const PROBED = 'api.secret-shop.example';

describe('/metrics publishes no per-site figure, site name or probed hostname without the admin token', () => {
  let t: TestApp;
  let readToken = '';
  beforeAll(async () => {
    t = await startApp({
      ADMIN_TOKEN: ADMIN,
      ALERT_INTERVAL_MS: '0',
      ALERT_WINDOWS: 'hour',
      ALERT_MIN_SAMPLES: '10',
      CLIENT_RECORDS_PER_CELL_DAY: '0',
    });
    const now = Date.now();
    const traffic = {
      site: SITE,
      country: 'DE',
      rtt: 40,
      fullTls: 80,
      resumedTls: 40,
      resumedShare: 0.5,
      tls13Share: 0.5,
      h3Share: 0.2,
      records: 300,
      clients: 30,
    };
    await insertRows(t.app.store.ingest, [
      ...generate({ ...traffic, from: now - HOUR, to: now - 60_000, seed: 1 }),
      ...generate({ ...traffic, from: now - HOUR - 7 * 24 * HOUR, to: now - 60_000 - 7 * 24 * HOUR, seed: 2 }),
    ]);
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/sites',
      payload: { hostname: SITE },
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    readToken = res.json().readToken;
    await t.app.inject({
      method: 'POST',
      url: `/v1/sites/${SITE}/probe-targets`,
      payload: { hostname: PROBED },
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    await t.app.alerts.evaluate(now);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    if (t) removeDir(t.dataDir);
  });

  it('the admin token reads the per-site series (the check below is not vacuous)', async () => {
    const res = await t.app.inject({ url: '/metrics', headers: { authorization: `Bearer ${ADMIN}` } });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain(`site="${SITE}"`);
    expect(res.body).toMatch(/tlsrum_site_tls_p75_seconds\{/);
  });

  it('without a token, and with a site read token, no series carries a site, a hostname or a site figure', async () => {
    for (const headers of [{}, { authorization: `Bearer ${readToken}` }]) {
      const res = await t.app.inject({ url: '/metrics', headers });
      expect(res.statusCode).toBe(200);
      expect(res.body).not.toContain('secret-shop');
      expect(res.body).not.toMatch(/\b(site|hostname)="/);
      expect(res.body).not.toMatch(/^tlsrum_site_/m);
      // The collector-wide series are still there.
      expect(res.body).toContain('tlsrum_batches_accepted_total');
    }
  });

  it('a wrong token on /metrics is refused like on every route', async () => {
    const res = await t.app.inject({ url: '/metrics', headers: { authorization: 'Bearer not-a-token-at-all' } });
    expect(res.statusCode).toBe(401);
  });
});

describe('TRUST_PROXY trusts a number of hops or a list of proxies, never the left-most X-Forwarded-For entry', () => {
  it('refuses TRUST_PROXY=true with a start-up error that says what to set instead', () => {
    expect(() => loadConfig({ TRUST_PROXY: 'true' })).toThrow(/left-most X-Forwarded-For.*TRUST_PROXY=1/);
    expect(() => loadConfig({ TRUST_PROXY: 'yes' })).toThrow(/TRUST_PROXY must be false, the number of proxies/);
    expect(() => loadConfig({ TRUST_PROXY: '0' })).toThrow(/TRUST_PROXY/);
    expect(Array.isArray(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 192.0.2.1, 2001:db8::/32' }).trustProxy)).toBe(true);
  });

  for (const trust of ['1', '127.0.0.1']) {
    it(`TRUST_PROXY=${trust}: rotating the left-most entry escapes neither the per-address ingest limit nor chooses the country`, async () => {
      const dir = freshStoreDir();
      const geo = `${dir}-spoof-geo.txt`;
      // The load balancer (127.0.0.1) saw the client at 198.51.100.7 (FR); the client claims to be in JP.
      writeFileSync(geo, '127.0.0.0/8 DE\n198.51.100.0/24 FR\n203.0.113.0/24 JP\n');
      const t = await startApp(
        { TRUST_PROXY: trust, RATE_LIMIT_PER_MINUTE: '3', GEOIP_OVERRIDES: geo, FLUSH_INTERVAL_MS: '50' },
        dir,
      );
      try {
        const statuses: number[] = [];
        for (let i = 0; i < 5; i++) {
          const res = await postBatch(t.app, makeBatch(makeRecords(1, { clientToken: `spoofing-client-${i}` })), {
            ip: '127.0.0.1',
            headers: { 'x-forwarded-for': `203.0.113.${i + 1}, 198.51.100.7` },
          });
          statuses.push(res.statusCode);
        }
        expect(statuses).toEqual([202, 202, 202, 429, 429]);
        const rows = await storedRows(t.app);
        expect(rows.map((r) => r.country)).toEqual(['FR', 'FR', 'FR']);
      } finally {
        await t.close();
        removeDir(dir);
        rmSync(geo, { force: true });
      }
    });
  }
});

describe('admin tokens cannot be guessed online', () => {
  it('ADMIN_TOKEN must carry at least 128 bits, and the error says the rule', () => {
    expect(() => loadConfig({ ADMIN_TOKEN: 'abcdefghijklmnop' })).toThrow(
      /ADMIN_TOKEN must be at least 128 bits: 32 hex digits or 22 other characters/,
    );
    expect(() => loadConfig({ ADMIN_TOKEN: '0123456789abcdef0123456789abcde' })).toThrow(/128 bits/);
    expect(() => loadConfig({ ADMIN_TOKEN: 'a'.repeat(40) })).toThrow(/10 different characters/);
    expect(loadConfig({ ADMIN_TOKEN: '0123456789abcdef0123456789abcdef' }).adminToken).toHaveLength(32);
    expect(loadConfig({ ADMIN_TOKEN: 'Zq3-x_Yv8LkPa2Rn7TbW0m' }).adminToken).toHaveLength(22);
  });

  it('start-up says whether the admin routes are enabled', () => {
    expect(adminRoutesNotice(loadConfig({}))).toMatch(/^admin routes disabled/);
    expect(adminRoutesNotice(loadConfig({ ADMIN_TOKEN: ADMIN }))).toMatch(
      /^admin routes enabled.*20 wrong tokens an hour per address/,
    );
  });

  it('after TOKEN_FAILURES_PER_HOUR wrong tokens an address gets 429 + Retry-After, even with the right token; other addresses are not affected', async () => {
    await withApp({ ADMIN_TOKEN: ADMIN, TOKEN_FAILURES_PER_HOUR: '5' }, async (t) => {
      expect(t.logs()).toContain('admin routes enabled');
      const register = (token: string, ip: string) =>
        t.app.inject({
          method: 'POST',
          url: '/v1/sites',
          remoteAddress: ip,
          payload: { hostname: 'guess.example' },
          headers: { authorization: `Bearer ${token}` },
        });
      const guesses: number[] = [];
      for (let i = 0; i < 3; i++)
        guesses.push((await register(`guess-${i}-${'x'.repeat(30)}`, '192.0.2.10')).statusCode);
      // Wrong tokens on read routes count as well.
      for (let i = 0; i < 2; i++)
        guesses.push(
          (
            await t.app.inject({
              url: '/v1/compare',
              remoteAddress: '192.0.2.10',
              headers: { authorization: `Bearer read-guess-${i}` },
            })
          ).statusCode,
        );
      expect(guesses).toEqual([401, 401, 401, 401, 401]);
      const locked = await register('one-more-guess-xxxxxxxxxxxxxxxxxxxxxxx', '192.0.2.10');
      expect(locked.statusCode).toBe(429);
      expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
      expect((await register(ADMIN, '192.0.2.10')).statusCode).toBe(429);
      expect(
        (
          await t.app.inject({
            url: '/v1/compare',
            remoteAddress: '192.0.2.10',
            headers: { authorization: `Bearer ${ADMIN}` },
          })
        ).statusCode,
      ).toBe(429);
      expect((await register(ADMIN, '198.51.100.20')).statusCode).toBe(201);
    });
  }, 60_000);
});

describe('every read route refuses an unknown query parameter, naming it', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ ADMIN_TOKEN: ADMIN });
    await t.app.inject({
      method: 'POST',
      url: '/v1/sites',
      payload: { hostname: SITE },
      headers: { authorization: `Bearer ${ADMIN}` },
    });
  });
  afterAll(async () => {
    await t?.close();
    if (t) removeDir(t.dataDir);
  });

  it('on every GET route of the API, with and without a token', async () => {
    const paths = Object.entries((t.app.swagger() as { paths: Record<string, Record<string, unknown>> }).paths)
      .filter(([path, ops]) => path.startsWith('/v1/') && 'get' in ops)
      .map(([path]) => path.replace(/\{[^}]+\}/g, SITE));
    expect(paths).toEqual(
      expect.arrayContaining(['/v1/compare', '/v1/summary', '/v1/sites', '/v1/about', '/v1/alerts']),
    );
    const wrong: string[] = [];
    for (const path of paths) {
      for (const headers of [{}, { authorization: `Bearer ${ADMIN}` }]) {
        const res = await t.app.inject({ url: `${path}?cryptoSource=probe`, headers });
        if (res.statusCode !== 400 || !res.json().message.includes('cryptoSource'))
          wrong.push(`${path}: ${res.statusCode} ${res.body}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('known parameters still work, and the message says what is wrong', async () => {
    expect((await t.app.inject({ url: '/v1/compare?dimensions=stack&browser=firefox' })).statusCode).toBe(200);
    const res = await t.app.inject({ url: '/v1/compare?dimensions=stack&brwoser=firefox' });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('querystring/brwoser is not a parameter of this route');
  });
});

describe('the alert webhook posts to its URL only, never where a redirect points', () => {
  let target: Server;
  let redirector: Server;
  let hits = 0;
  const listen = (s: Server) =>
    new Promise<number>((r) => s.listen(0, '127.0.0.1', () => r((s.address() as { port: number }).port)));
  beforeAll(async () => {
    target = createServer((req, res) => {
      hits++;
      req.resume();
      res.end('ok');
    });
    const targetPort = await listen(target);
    redirector = createServer((req, res) => {
      req.resume();
      res.writeHead(307, { location: `http://127.0.0.1:${targetPort}/internal` }).end();
    });
    await listen(redirector);
  });
  afterAll(async () => {
    target.close();
    redirector.close();
  });

  it('a redirect is a failed delivery', async () => {
    const failures: number[] = [];
    const webhook = new Webhook({
      url: `http://127.0.0.1:${(redirector.address() as { port: number }).port}/hook`,
      retries: 1,
      timeoutMs: 2000,
      backoffMs: 5,
      onFailed: (_e, n) => failures.push(n),
    });
    await webhook.send({ test: true });
    await webhook.close();
    expect(failures).toEqual([2]);
    expect(webhook.delivered).toBe(0);
    expect(hits).toBe(0);
  });
});

describe('connections are capped explicitly', () => {
  it('MAX_CONNECTIONS and MAX_REQUESTS_PER_SOCKET reach the HTTP server', async () => {
    await withApp({ MAX_CONNECTIONS: '123', MAX_REQUESTS_PER_SOCKET: '45' }, async (t) => {
      expect(t.app.server.maxConnections).toBe(123);
      expect(t.app.server.maxRequestsPerSocket).toBe(45);
    });
    expect(loadConfig({}).maxConnections).toBe(10_000);
  });
});

describe('the per-client cap cannot be flushed', () => {
  const K = 5;
  const KEYS = 50;
  const record = (token: string, overrides: Partial<HandshakeRecord> = {}): HandshakeRecord => ({
    ...makeRecords(1)[0]!,
    site: SITE,
    clientToken: token,
    ...overrides,
  });
  const ctx = (counter: ClientCapCounter, batchId = randomUUID()): RowContext => ({
    batch: { batchId, agent: { name: 'test', version: '1' }, sentAt: Date.now() },
    country: 'DE',
    receivedAt: Date.now(),
    isRegisteredSite: (h) => h === SITE,
    overClientCap: counter.forBatch(),
  });

  it('a few hundred junk batches (flagged or not) give a flooder who reached K no more counted records', () => {
    const counter = new ClientCapCounter({ perCell: K, maxEntries: KEYS });
    const flood = (n: number) => {
      const c = ctx(counter);
      return Array.from({ length: n }, () => toRow(record('flooder-token'), c).capped);
    };
    expect(flood(K)).toEqual(Array(K).fill(0));
    for (let i = 0; i < 300; i++) {
      // Flagged junk (a browser version no release has: stored, flagged, counted nowhere) …
      const flagged = toRow(record(`junk-flagged-${i}`, { browserMajor: 9999 }), ctx(counter));
      expect(flagged.implausible).not.toBe(0);
      expect(flagged.capped).toBe(0);
      // … and plausible junk with a fresh token each time, for a site nobody registered.
      toRow(record(`junk-plausible-${i}`, { site: `junk-${i}.example` }), ctx(counter));
    }
    expect(counter.size).toBeLessThanOrEqual(2 * KEYS);
    expect(flood(3 * K)).toEqual(Array(3 * K).fill(1));
  });

  it('flagged records neither count toward a client’s K nor take a key', () => {
    const counter = new ClientCapCounter({ perCell: K, maxEntries: KEYS });
    const c = ctx(counter);
    for (let i = 0; i < 20; i++) toRow(record('honest-token', { browserMajor: 9999 }), c);
    expect(counter.size).toBe(0);
    expect(Array.from({ length: K }, () => toRow(record('honest-token'), c).capped)).toEqual(Array(K).fill(0));
  });
});

describe('a stored batch id ties no two client tokens together', () => {
  it('a batch mixing two tokens (queued across UTC midnight) is stored as one batch id per token; a resend is still a duplicate', async () => {
    await withApp({ FLUSH_INTERVAL_MS: '50' }, async (t) => {
      // Queued across UTC midnight: yesterday's records with yesterday's token, today's with today's.
      const midnight = Math.floor(Date.now() / DAY) * DAY;
      const at = (ts: number, clientToken: string) => makeRecords(1, { ts, clientToken }, 1)[0]!;
      const batch = makeBatch([
        at(midnight - 3000, 'token-of-yesterday-00'),
        at(midnight - 2000, 'token-of-yesterday-00'),
        at(midnight - 1000, 'token-of-yesterday-00'),
        at(midnight + 1000, 'token-of-today-000000'),
        at(midnight + 2000, 'token-of-today-000000'),
        at(midnight - 500, 'token-of-yesterday-00'),
      ]);
      expect((await postBatch(t.app, batch)).statusCode).toBe(202);
      const resend = await postBatch(t.app, batch);
      expect(resend.json()).toMatchObject({ duplicate: true });
      const rows = await storedRows(t.app);
      expect(rows).toHaveLength(6);
      const tokensOf = new Map<string, Set<string>>();
      for (const r of rows)
        tokensOf.set(String(r.batchId), (tokensOf.get(String(r.batchId)) ?? new Set()).add(String(r.clientToken)));
      expect([...tokensOf.values()].map((s) => s.size)).toEqual([1, 1]);
      // The first token's rows keep the batch's id (what the spool and the duplicate check know it by).
      expect([...tokensOf.get(batch.batchId)!]).toEqual(['token-of-yesterday-00']);
    });
  });
});
