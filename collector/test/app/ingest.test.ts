import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gzipSync } from 'node:zlib';
import { randomUUID } from 'node:crypto';
import example from '@tlsrum/shared/examples/batch.json' with { type: 'json' };
import { makeBatch, makeRecords, postBatch, removeDir, startApp, storedRows, type TestApp } from '../support/helpers';

let t: TestApp;
beforeAll(async () => {
  t = await startApp({ ADMIN_TOKEN: 'admin-token-for-tests-0001', FLUSH_INTERVAL_MS: '50' });
  await t.app.sites.register('www.example.com');
});
afterAll(async () => {
  await t.close();
  removeDir(t.dataDir);
});

describe('POST /v1/handshakes', () => {
  it('stores a batch and shows it in the summary (round trip)', async () => {
    const batch = makeBatch(
      makeRecords(4, {
        protocol: 'h3',
        transport: 'quic',
        tcp: 0,
        connect: 51.9,
        tlsVersion: '1.3',
        tlsVersionSource: 'implied',
      }),
    );
    const res = await postBatch(t.app, batch);
    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual({ accepted: 4 });
    const rows = await storedRows(t.app, `batchId = '${batch.batchId}'`);
    expect(rows).toHaveLength(4);
    expect(rows[0]).toMatchObject({
      protocol: 'h3',
      transport: 'quic',
      tlsVersion: '1.3',
      site: 'www.example.com',
      country: 'DE',
    });
    const summary = (await t.app.inject({ url: `/v1/summary?from=${Date.now() - 60_000}` })).json();
    expect(summary.byProtocol.h3).toEqual({ records: 4 });
    expect(summary.records).toBeGreaterThanOrEqual(4);
  });

  it('accepts the documented example batch (timestamps moved to now)', async () => {
    const now = Date.now();
    const batch = {
      ...example,
      batchId: randomUUID(),
      records: example.records.map((r, i) => ({ ...r, ts: now - i })),
    };
    const res = await postBatch(t.app, batch);
    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual({ accepted: 3 });
  });

  it('accepts gzip bodies', async () => {
    const batch = makeBatch(makeRecords(500));
    const res = await postBatch(t.app, batch, { gzip: true });
    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual({ accepted: 500 });
    expect(await storedRows(t.app, `batchId = '${batch.batchId}'`)).toHaveLength(500);
  });

  it('stores a resent batch once', async () => {
    const batch = makeBatch(makeRecords(2));
    expect((await postBatch(t.app, batch)).json()).toEqual({ accepted: 2 });
    const again = await postBatch(t.app, batch);
    expect(again.statusCode).toBe(202);
    expect(again.json()).toEqual({ accepted: 0, duplicate: true });
    expect(await storedRows(t.app, `batchId = '${batch.batchId}'`)).toHaveLength(2);
  });

  it('drops unknown fields instead of storing or rejecting them', async () => {
    const batch = makeBatch(makeRecords(1));
    const body = {
      ...batch,
      extra: 'x',
      records: batch.records.map((r) => ({ ...r, url: 'https://www.example.com/secret?q=1', ip: '198.51.100.9' })),
    };
    const res = await postBatch(t.app, body);
    expect(res.statusCode).toBe(202);
    const rows = await storedRows(t.app, `batchId = '${batch.batchId}'`);
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toMatch(/secret|198\.51\.100\.9/);
  });

  it('normalises hostnames (case, trailing dot, IDNA) before the registered-site check', async () => {
    await t.app.sites.register('xn--bcher-kva.example');
    const batch = makeBatch([
      ...makeRecords(1, { site: 'WWW.Example.COM.' }),
      ...makeRecords(1, { site: 'Bücher.example' }),
      ...makeRecords(1, { site: 'ｗｗｗ.example.com' }),
    ]);
    expect((await postBatch(t.app, batch)).statusCode).toBe(202);
    const rows = await storedRows(t.app, `batchId = '${batch.batchId}'`);
    expect(rows.map((r) => r.site).sort()).toEqual(['www.example.com', 'www.example.com', 'xn--bcher-kva.example']);
  });

  it('nulls the hostname of a site that is not registered', async () => {
    const batch = makeBatch(makeRecords(1, { site: 'unregistered.example.org' }));
    expect((await postBatch(t.app, batch)).statusCode).toBe(202);
    const [row] = await storedRows(t.app, `batchId = '${batch.batchId}'`);
    expect(row!.site).toBe('');
  });

  it('derives the country from the client address without storing the address', async () => {
    const batch = makeBatch(makeRecords(1));
    expect((await postBatch(t.app, batch, { ip: '8.8.8.8' })).statusCode).toBe(202);
    const [row] = await storedRows(t.app, `batchId = '${batch.batchId}'`);
    expect(row!.country).toBe('US');
    expect(JSON.stringify(row)).not.toContain('8.8.8.8');
    const unknown = makeBatch(makeRecords(1));
    await postBatch(t.app, unknown, { ip: '10.1.2.3' });
    expect((await storedRows(t.app, `batchId = '${unknown.batchId}'`))[0]!.country).toBe('ZZ');
  });
});

describe('POST /v1/handshakes refuses bad input with the right status', () => {
  const good = () => makeBatch(makeRecords(1));
  const withRecord = (patch: Record<string, unknown>) => {
    const b = good();
    return { ...b, records: [{ ...b.records[0], ...patch }] };
  };

  it.each([
    ['a phase above 60 000 ms', withRecord({ tls: 60_000.1 }), 'body/records/0/tls'],
    ['a negative phase', withRecord({ dns: -1 }), 'body/records/0/dns'],
    ['a phase given as a string', withRecord({ ttfb: '12' }), 'body/records/0/ttfb'],
    ['an unknown protocol', withRecord({ protocol: 'spdy/3' }), 'body/records/0/protocol'],
    ['a hostname with a query', withRecord({ site: 'www.example.com?q=1' }), 'body/records/0/site'],
    ['an IP address as hostname', withRecord({ site: '192.0.2.1' }), 'body/records/0/site'],
    ['a hostname with a path', withRecord({ site: 'example.com/a' }), 'body/records/0/site'],
    ['a too long client token', withRecord({ clientToken: 'x'.repeat(65) }), 'body/records/0/clientToken'],
    ['a fractional browser version', withRecord({ browserMajor: 1.5 }), 'body/records/0/browserMajor'],
    ['a timestamp a year old', withRecord({ ts: Date.now() - 365 * 86_400_000 }), 'body/records/0/ts'],
    ['a timestamp two days ahead', withRecord({ ts: Date.now() + 2 * 86_400_000 }), 'body/records/0/ts'],
    [
      'a missing field',
      (() => {
        const b = good();
        const { tls: _tls, ...r } = b.records[0]!;
        return { ...b, records: [r] };
      })(),
      'tls',
    ],
    ['a bad batch id', { ...good(), batchId: 'not-a-uuid' }, 'body/batchId'],
    ['a wrong schema version', { ...good(), v: 2 }, 'body/v'],
    ['no records', { ...good(), records: [] }, 'body/records'],
    ['501 records', makeBatch(makeRecords(501)), 'body/records'],
  ])('400 for %s, naming the field', async (_name, body, path) => {
    // gzip, as the extension sends: 501 records are over the 256 KiB limit as plain JSON.
    const res = await postBatch(t.app, body, { gzip: true });
    expect(res.statusCode).toBe(400);
    const json = res.json();
    expect(json).toMatchObject({ statusCode: 400, error: 'Bad Request' });
    expect(json.message).toContain(path);
  });

  it('400 for a body that is not JSON', async () => {
    const res = await postBatch(t.app, '{"v":1,');
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('body is not valid JSON');
  });

  it('400 for a body that claims gzip but is not', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/handshakes',
      payload: Buffer.from('not gzip at all'),
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('body is not valid gzip');
  });

  it('413 for a body over the limit as sent', async () => {
    const res = await postBatch(t.app, JSON.stringify({ pad: 'x'.repeat(300 * 1024) }));
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ statusCode: 413, error: 'Payload Too Large' });
  });

  it('413 for a gzip body that inflates past the limit (a gzip bomb), without inflating it whole', async () => {
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x20)); // 64 MiB of spaces, ~64 KiB compressed
    expect(bomb.length).toBeLessThan(256 * 1024);
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/handshakes',
      payload: bomb,
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    });
    expect(res.statusCode).toBe(413);
  });

  it('415 for other content types and encodings', async () => {
    const body = JSON.stringify(good());
    const text = await t.app.inject({
      method: 'POST',
      url: '/v1/handshakes',
      payload: body,
      headers: { 'content-type': 'text/plain' },
    });
    expect(text.statusCode).toBe(415);
    const form = await t.app.inject({
      method: 'POST',
      url: '/v1/handshakes',
      payload: 'a=1',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.statusCode).toBe(415);
    const br = await t.app.inject({
      method: 'POST',
      url: '/v1/handshakes',
      payload: body,
      headers: { 'content-type': 'application/json', 'content-encoding': 'br' },
    });
    expect(br.statusCode).toBe(415);
    expect(br.json().message).toContain('content-encoding');
  });

  it('404 in the same error shape for unknown routes', async () => {
    const res = await t.app.inject({ url: '/v1/nope' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ statusCode: 404, error: 'Not Found', message: 'no such route' });
  });
});
