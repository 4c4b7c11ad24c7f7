import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ClickHouseClient } from '@clickhouse/client';
import { tokenMatches } from '../../src/sites/auth';
import { SiteRegistry } from '../../src/sites/registry';
import { removeDir, startApp, type TestApp } from '../support/helpers';

const ADMIN = 'admin-token-for-tests-0001';
let t: TestApp;
beforeAll(async () => (t = await startApp({ ADMIN_TOKEN: ADMIN })));
afterAll(async () => {
  await t.close();
  removeDir(t.dataDir);
});

describe('/v1/sites', () => {
  const register = (hostname: unknown, token = ADMIN) =>
    t.app.inject({
      method: 'POST',
      url: '/v1/sites',
      payload: { hostname },
      headers: { authorization: `Bearer ${token}` },
    });

  it('registers a site with the admin token and lists it', async () => {
    const first = (await register('shop.example.com')).json();
    expect(first).toMatchObject({ hostname: 'shop.example.com', created: true });
    expect(first.readToken).toMatch(/^tlsrum_rt_[A-Za-z0-9_-]{43}$/);
    const again = (await register('shop.example.com')).json();
    expect(again).toMatchObject({ hostname: 'shop.example.com', created: false });
    // Registering again rotates the read token.
    expect(again.readToken).not.toBe(first.readToken);
    const list = await t.app.inject({ url: '/v1/sites' });
    expect(list.json().sites).toEqual(['shop.example.com']);
    expect(list.json().profiles).toBeTypeOf('object');
    expect(list.headers['cache-control']).toContain('max-age');
  });

  it('refuses without the right token, and refuses invalid hostnames', async () => {
    expect((await register('a.example.com', 'wrong-token-wrong-token')).statusCode).toBe(401);
    expect(
      (await t.app.inject({ method: 'POST', url: '/v1/sites', payload: { hostname: 'a.example.com' } })).statusCode,
    ).toBe(401);
    const bad = await register('https://a.example.com/');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toBe('give the hostname only (e.g. example.com), not a URL');
  });

  it.each([
    ['https://shop.example.com/', 'give the hostname only (e.g. example.com), not a URL'],
    ['shop.example.com/checkout', 'give the hostname only (e.g. example.com), without a path, query or fragment'],
    ['shop.example.com:8443', /without a port/],
    ['203.0.113.7', /an IP address cannot be registered/],
    ['exa mple.com', /no spaces/],
    ['a..example.com', /not a valid hostname/],
    ['', /give the site's hostname/],
  ])('registering %j is a 400 that says what to give instead', async (hostname, reason) => {
    const res = await register(hostname);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toMatch(reason);
    // Never the schema's pattern or a regular expression.
    expect(res.json().message).not.toMatch(/pattern|\^|\$|body\//);
  });

  it('registers the normal form of a hostname given in capitals with a trailing dot', async () => {
    const res = await register('Blog.Example.COM.');
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ hostname: 'blog.example.com', created: true });
    const del = await t.app.inject({
      method: 'DELETE',
      url: '/v1/sites/blog.example.com',
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    expect(del.json()).toEqual({ hostname: 'blog.example.com', removed: true });
  });

  it('a URL in the unregister path is a 400 in words, too', async () => {
    const res = await t.app.inject({
      method: 'DELETE',
      url: `/v1/sites/${encodeURIComponent('https://shop.example.com/')}`,
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('give the hostname only (e.g. example.com), not a URL');
  });

  it('unregisters a site; the registry survives a reload from the store', async () => {
    await register('old.example.com');
    const del = await t.app.inject({
      method: 'DELETE',
      url: '/v1/sites/old.example.com',
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    expect(del.json()).toEqual({ hostname: 'old.example.com', removed: true });
    await t.app.sites.refresh();
    expect(t.app.sites.list()).toEqual(['shop.example.com']);
  });

  it('keeps a site registered while a refresh that read the store before it was saved finishes', async () => {
    // The app's own store, with the registry's first read held once its rows are in: a slow refresh.
    let open = () => {};
    const gate = new Promise<void>((resolve) => (open = resolve));
    let held = false;
    const holdFirst = async <T>(rows: T): Promise<T> => {
      if (!held) {
        held = true;
        await gate;
      }
      return rows;
    };
    const client = new Proxy(t.app.store.query, {
      get: (target, prop, receiver) =>
        prop === 'query'
          ? async (...args: Parameters<ClickHouseClient['query']>) => {
              const answer = await target.query(...args);
              return new Proxy(answer, {
                get: (rs, name, r) =>
                  name === 'json' ? async () => holdFirst(await rs.json()) : Reflect.get(rs, name, r),
              });
            }
          : Reflect.get(target, prop, receiver),
    });
    const registry = new SiteRegistry(client);
    const refreshing = registry.refresh();
    while (!held) await new Promise((resolve) => setTimeout(resolve, 5));
    // The list is read (without the new site); the registration comes before the refresh has finished.
    const registering = registry.register('race.example.com', 'a-token-hash');
    // Time for the registration to be saved if nothing holds it back (it waits for the refresh otherwise).
    await Promise.race([registering, new Promise((resolve) => setTimeout(resolve, 500))]);
    open();
    await Promise.all([refreshing, registering]);
    expect(registry.has('race.example.com')).toBe(true);
    expect(await registry.siteForToken('not-the-token')).toBeNull();
    await registry.unregister('race.example.com');
  });

  it('keeps refreshing when its first read at start-up fails, and says so instead of throwing', async () => {
    // The app's own store, refusing the registry's first read (as a busy or not yet reachable store does).
    let refused = false;
    const client = new Proxy(t.app.store.query, {
      get: (target, prop, receiver) =>
        prop === 'query'
          ? async (...args: Parameters<ClickHouseClient['query']>) => {
              if (refused) return target.query(...args);
              refused = true;
              throw new Error('the store is busy');
            }
          : Reflect.get(target, prop, receiver),
    });
    const registry = new SiteRegistry(client);
    const errors: unknown[] = [];
    try {
      await registry.start(50, (err) => errors.push(err));
      expect(errors.map((e) => (e as Error).message)).toEqual(['the store is busy']);
      // The next scheduled read finds the sites registered so far.
      await vi.waitFor(() => expect(registry.has('shop.example.com')).toBe(true));
    } finally {
      registry.stop();
    }
  });

  it('compares tokens in constant time and never matches an unset token', () => {
    expect(tokenMatches('abc', 'abc')).toBe(true);
    expect(tokenMatches('abd', 'abc')).toBe(false);
    expect(tokenMatches('abc', null)).toBe(false);
    expect(tokenMatches(undefined, 'abc')).toBe(false);
  });
});
