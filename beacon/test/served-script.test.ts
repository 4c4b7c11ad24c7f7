import { gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { buildServedScript, MAX_GZIP_BYTES } from '../src/build';

describe('the served script', () => {
  it(`stays within ${MAX_GZIP_BYTES} bytes gzip`, async () => {
    const script = await buildServedScript();
    expect(gunzipSync(gzipSync(script.code)).toString()).toBe(script.code);
    expect(script.gzipBytes).toBeGreaterThan(0);
    expect(script.gzipBytes).toBeLessThanOrEqual(MAX_GZIP_BYTES);
  });

  it('builds to the same bytes, integrity hash and ETag every time (the tag pins the hash)', async () => {
    const [a, b] = [await buildServedScript(), await buildServedScript()];
    expect(b.code).toBe(a.code);
    expect(a.integrity).toMatch(/^sha384-[A-Za-z0-9+/]{64}$/);
    expect(b.integrity).toBe(a.integrity);
    expect(a.etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
  });

  it('touches no cookie or storage API and holds no second copy of the shared code', async () => {
    const { code } = await buildServedScript();
    for (const api of ['cookie', 'localStorage', 'sessionStorage', 'indexedDB', 'caches'])
      expect(code).not.toContain(api);
    // One copy of the tuple gatherer's classifier rule (connectionKind's 'opaque' verdict appears twice in it).
    expect(code.split('"insecure"').length - 1).toBe(1);
  });
});
