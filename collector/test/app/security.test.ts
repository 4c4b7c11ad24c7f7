/**
 * Rate limit, load shedding, CORS, security headers and error hygiene, through app.inject on a real store.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { originMatcher } from '../../src/platform/http/cors';
import { makeBatch, makeRecords, metricValue, postBatch, removeDir, startApp, type TestApp } from '../support/helpers';

const CHROME_ID = 'abcdefghijklmnopabcdefghijklmnop';
const MOZ_UUID = '0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0';

describe('rate limit (RATE_LIMIT_PER_MINUTE)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ RATE_LIMIT_PER_MINUTE: '3' });
  });
  afterAll(async () => {
    await t.close();
    removeDir(t.dataDir);
  });

  it('answers 429 + Retry-After past the limit, per client address, and counts it', async () => {
    for (let i = 0; i < 3; i++)
      expect((await postBatch(t.app, makeBatch(), { ip: '192.0.2.10' })).statusCode).toBe(202);
    const limited = await postBatch(t.app, makeBatch(), { ip: '192.0.2.10' });
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.json()).toMatchObject({ statusCode: 429, error: 'Too Many Requests' });
    expect(limited.json().message).toContain('3 requests a minute');
    // Another address is not affected; the query routes are not limited.
    expect((await postBatch(t.app, makeBatch(), { ip: '192.0.2.11' })).statusCode).toBe(202);
    expect((await t.app.inject({ url: '/healthz', remoteAddress: '192.0.2.10' })).statusCode).toBe(200);
    const text = (await t.app.inject({ url: '/metrics' })).body;
    expect(metricValue(text, 'tlsrum_http_responses_total{status="429"}')).toBe(1);
    expect(metricValue(text, 'tlsrum_batches_rejected_total{reason="rate_limited"}')).toBe(1);
    // The limiter keeps addresses in memory only: never in logs.
    expect(t.logs()).not.toContain('192.0.2.10');
  });
});

describe('load shedding (@fastify/under-pressure)', () => {
  it('answers 503 + Retry-After on ingest when the heap is over MAX_HEAP_USED_BYTES, still answers health and metrics', async () => {
    const t = await startApp({ MAX_HEAP_USED_BYTES: '1', MAX_EVENT_LOOP_DELAY_MS: '0' });
    try {
      let res = await postBatch(t.app, makeBatch());
      // The plugin samples memory once a second: wait for the first sample.
      for (let i = 0; i < 40 && res.statusCode !== 503; i++) {
        await new Promise((r) => setTimeout(r, 100));
        res = await postBatch(t.app, makeBatch());
      }
      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toBe('10');
      expect(res.json()).toMatchObject({ statusCode: 503, error: 'Service Unavailable' });
      expect((await t.app.inject({ url: '/healthz' })).statusCode).toBe(200);
      const metrics = await t.app.inject({ url: '/metrics' });
      expect(metrics.statusCode).toBe(200);
      expect(
        metricValue(metrics.body, 'tlsrum_pressure_rejections_total{type="heapUsedBytes"}'),
      ).toBeGreaterThanOrEqual(1);
      expect(metricValue(metrics.body, 'tlsrum_batches_rejected_total{reason="pressure"}')).toBeGreaterThanOrEqual(1);
    } finally {
      await t.close();
      removeDir(t.dataDir);
    }
  });
});

describe('CORS (CORS_ORIGINS), security headers, errors', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({
      CORS_ORIGINS: `chrome-extension://${CHROME_ID}, moz-extension://*, https://dash.example.net`,
    });
    t.app.get('/test-boom', async () => {
      throw new Error('secret internals at /srv/tlsrum/x.ts:42');
    });
  });
  afterAll(async () => {
    await t.close();
    removeDir(t.dataDir);
  });

  it('matches configured origins only', () => {
    const ok = originMatcher([`chrome-extension://${CHROME_ID}`, 'moz-extension://*']);
    expect(ok(`chrome-extension://${CHROME_ID}`)).toBe(true);
    expect(ok(`moz-extension://${MOZ_UUID}`)).toBe(true);
    expect(ok(`chrome-extension://${'b'.repeat(32)}`)).toBe(false);
    expect(ok('moz-extension://not-a-uuid')).toBe(false);
    expect(ok('https://evil.example')).toBe(false);
    expect(ok('null')).toBe(false);
    expect(ok(undefined)).toBe(false);
    expect(originMatcher(['chrome-extension://*'])(`chrome-extension://${'c'.repeat(32)}`)).toBe(true);
  });

  it.each([`chrome-extension://${CHROME_ID}`, `moz-extension://${MOZ_UUID}`, 'https://dash.example.net'])(
    'answers the preflight and the POST of %s with its origin',
    async (origin) => {
      const pre = await t.app.inject({
        method: 'OPTIONS',
        url: '/v1/handshakes',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type, content-encoding',
        },
      });
      expect(pre.statusCode).toBe(204);
      expect(pre.headers['access-control-allow-origin']).toBe(origin);
      expect(String(pre.headers['access-control-allow-methods'])).toContain('POST');
      expect(String(pre.headers['access-control-allow-headers'])).toContain('content-encoding');
      const res = await postBatch(t.app, makeBatch(makeRecords(1)), { gzip: true, headers: { origin } });
      expect(res.statusCode).toBe(202);
      expect(res.headers['access-control-allow-origin']).toBe(origin);
    },
  );

  it('gives other origins no CORS headers', async () => {
    for (const origin of ['https://evil.example', `chrome-extension://${'z'.repeat(32)}`, 'null']) {
      const pre = await t.app.inject({
        method: 'OPTIONS',
        url: '/v1/handshakes',
        headers: { origin, 'access-control-request-method': 'POST' },
      });
      expect(pre.headers['access-control-allow-origin']).toBeUndefined();
      const res = await postBatch(t.app, makeBatch(makeRecords(1)), { headers: { origin } });
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    }
  });

  it('sends security headers with a CSP that allows the dashboard (inline styles, data: images) and nothing inline for scripts', async () => {
    const res = await t.app.inject({ url: '/healthz' });
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(csp).toMatch(/style-src 'self' 'unsafe-inline'/);
    expect(csp).toMatch(/img-src 'self' data:/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
  });

  it('never sends a stack trace or internal message: 500 says "internal error"', async () => {
    const res = await t.app.inject({ url: '/test-boom' });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ statusCode: 500, error: 'Internal Server Error', message: 'internal error' });
    expect(res.body).not.toMatch(/secret|\/srv|at .*\.ts/);
  });
});
