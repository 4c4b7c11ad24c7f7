/**
 * The dashboard's files as a browser receives them: the build's compressed copy the browser accepts
 * (brotli, else gzip), with the original's type and cache rule; the file itself to a browser that accepts
 * neither, or when the build left no copy. A dashboard built while the collector runs is served at the next
 * reload; an unknown path is the API's own 404.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDir, tempDir, withApp } from '../support/helpers';

const SCRIPT = `export const panels = ${JSON.stringify(Array.from({ length: 200 }, (_, i) => `panel ${i}`))};\n`;
const PAGE = '<!doctype html><title>tlsrum</title><script type="module" src="./assets/main-abc123.js"></script>';
let dir = '';

beforeAll(() => {
  dir = tempDir('tlsrum-dash-');
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'index.html'), PAGE);
  writeFileSync(join(dir, 'index.html.br'), brotliCompressSync(PAGE));
  writeFileSync(join(dir, 'index.html.gz'), gzipSync(PAGE));
  writeFileSync(join(dir, 'assets', 'main-abc123.js'), SCRIPT);
  writeFileSync(join(dir, 'assets', 'main-abc123.js.br'), brotliCompressSync(SCRIPT));
  writeFileSync(join(dir, 'assets', 'main-abc123.js.gz'), gzipSync(SCRIPT));
  writeFileSync(join(dir, 'assets', 'small-abc123.css'), 'body{margin:0}');
});
afterAll(() => removeDir(dir));

const get = (app: Parameters<Parameters<typeof withApp>[1]>[0]['app'], url: string, encoding?: string) =>
  app.inject({ url, headers: encoding === undefined ? {} : { 'accept-encoding': encoding } });

describe('the dashboard files', () => {
  it('go out as the brotli copy to a browser accepting it, with the original type and a year of cache', async () => {
    await withApp({ DASHBOARD_DIR: dir }, async ({ app }) => {
      const res = await get(app, '/assets/main-abc123.js', 'gzip, deflate, br, zstd');
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-encoding']).toBe('br');
      expect(res.headers['content-type']).toMatch(/^(text|application)\/javascript/);
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(res.headers['vary']).toMatch(/accept-encoding/i);
      expect(brotliDecompressSync(res.rawPayload).toString()).toBe(SCRIPT);
      expect(res.rawPayload.length).toBeLessThan(SCRIPT.length / 2);
    });
  });

  it('go out as the gzip copy to a browser accepting only gzip, the page too', async () => {
    await withApp({ DASHBOARD_DIR: dir }, async ({ app }) => {
      const script = await get(app, '/assets/main-abc123.js', 'gzip');
      expect(script.headers['content-encoding']).toBe('gzip');
      expect(gunzipSync(script.rawPayload).toString()).toBe(SCRIPT);
      const page = await get(app, '/', 'gzip');
      expect(page.statusCode).toBe(200);
      expect(page.headers['content-encoding']).toBe('gzip');
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.headers['cache-control']).toBe('no-cache');
      expect(gunzipSync(page.rawPayload).toString()).toBe(PAGE);
    });
  });

  it('go out as they are to a client accepting no encoding, and when the build left no compressed copy', async () => {
    await withApp({ DASHBOARD_DIR: dir }, async ({ app }) => {
      const plain = await get(app, '/assets/main-abc123.js');
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.body).toBe(SCRIPT);
      const small = await get(app, '/assets/small-abc123.css', 'br, gzip');
      expect(small.statusCode).toBe(200);
      expect(small.headers['content-encoding']).toBeUndefined();
      expect(small.body).toBe('body{margin:0}');
    });
  });

  it('built while the collector runs, are served at the next reload: the page instead of "not built", its new hashed files too', async () => {
    const later = join(tempDir('tlsrum-dash-later-'), 'dist');
    try {
      await withApp({ DASHBOARD_DIR: later }, async ({ app }) => {
        const before = await get(app, '/');
        expect(before.statusCode).toBe(200);
        expect(before.body).toContain('The dashboard is not built');
        expect((await get(app, '/assets/main-def456.js')).statusCode).toBe(404);
        // The build writes its folder while the collector runs.
        mkdirSync(join(later, 'assets'), { recursive: true });
        writeFileSync(join(later, 'index.html'), PAGE.replace('abc123', 'def456'));
        writeFileSync(join(later, 'assets', 'main-def456.js'), SCRIPT);
        const page = await get(app, '/');
        expect(page.statusCode).toBe(200);
        expect(page.headers['content-type']).toMatch(/^text\/html/);
        expect(page.headers['cache-control']).toBe('no-cache');
        expect(page.body).toBe(PAGE.replace('abc123', 'def456'));
        const script = await get(app, '/assets/main-def456.js');
        expect(script.statusCode).toBe(200);
        expect(script.headers['cache-control']).toBe('public, max-age=31536000, immutable');
        expect(script.body).toBe(SCRIPT);
      });
    } finally {
      removeDir(join(later, '..'));
    }
  });

  it("answer an unknown path with the API's own 404, and nothing outside the folder", async () => {
    await withApp({ DASHBOARD_DIR: join(dir, 'assets') }, async ({ app }) => {
      for (const url of ['/no-such-file.js', '/v1/no-such-route']) {
        const res = await get(app, url);
        expect(res.statusCode, url).toBe(404);
        expect(res.json(), url).toEqual({ statusCode: 404, error: 'Not Found', message: 'no such route' });
      }
      // The folder's parent holds index.html: no way up to it.
      for (const url of ['/../index.html', '/%2e%2e/index.html', '/assets/..%2f..%2findex.html']) {
        const res = await get(app, url);
        expect([403, 404], url).toContain(res.statusCode);
        expect(res.body, url).not.toContain('<title>tlsrum</title>');
      }
    });
  });
});
