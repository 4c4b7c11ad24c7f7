/**
 * Builds the served script (src/served.ts with the parts of shared/ it uses, tree-shaken) in memory:
 * one minified IIFE, the same bytes every time for the same sources. The collector builds it at start and
 * serves it at `GET /beacon.js`; `pnpm --filter @tlsrum/beacon build` writes it to dist/ and prints its
 * size and Subresource Integrity hash (the docs' tag carries it).
 */
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

/** The served script's budget: smaller than any RUM library a site already carries. */
export const MAX_GZIP_BYTES = 2048;

export interface ServedScript {
  code: string;
  /** `sha384-…`, for the tag's `integrity` attribute. */
  integrity: string;
  /** Size after `gzip -9`. */
  gzipBytes: number;
  /** A strong ETag: a hash of the content (the URL carries no version). */
  etag: string;
}

export async function buildServedScript(): Promise<ServedScript> {
  const result = await build({
    entryPoints: [fileURLToPath(new URL('./served.ts', import.meta.url))],
    bundle: true,
    minify: true,
    format: 'iife',
    // Browsers that have Resource Timing Level 2 and sendBeacon: every evergreen browser.
    target: ['es2020'],
    platform: 'browser',
    write: false,
    legalComments: 'none',
    logLevel: 'silent',
  });
  const code = result.outputFiles[0]!.text;
  return describe(code);
}

export function describe(code: string): ServedScript {
  const bytes = Buffer.from(code, 'utf8');
  return {
    code,
    integrity: `sha384-${createHash('sha384').update(bytes).digest('base64')}`,
    gzipBytes: gzipSync(bytes, { level: 9 }).length,
    etag: `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"`,
  };
}
