import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';
import { guidePage } from './scripts/guide-html.ts';
import { COMPILE_HINT } from './scripts/compile-hint.ts';
import { countryNamesModule } from './scripts/country-names.ts';

/**
 * The guides the dashboard links to, as rendered pages (`guide/<name>.html`): written for site owners
 * (dashboard/guides/, and docs/server-timing.md, which already is).
 */
function guides(files: Record<string, string>): Plugin {
  return {
    name: 'tlsrum-guides',
    generateBundle() {
      for (const [name, path] of Object.entries(files)) {
        this.emitFile({
          type: 'asset',
          fileName: `guide/${name}.html`,
          source: guidePage(readFileSync(new URL(path, import.meta.url), 'utf8')),
        });
      }
    },
  };
}

/**
 * Beside every text file of the build, its brotli (`.br`) and gzip (`.gz`) copies, compressed once at
 * their highest levels: the collector sends the one the browser accepts (@fastify/static `preCompressed`),
 * so a visitor downloads about a quarter of the bytes and the collector compresses nothing per request.
 */
function precompressed(): Plugin {
  let outDir = '';
  return {
    name: 'tlsrum-precompressed',
    apply: 'build',
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir);
    },
    writeBundle(_options, bundle) {
      for (const name of Object.keys(bundle)) {
        if (!/\.(js|css|html|svg|json)$/.test(name)) continue;
        const path = join(outDir, name);
        const source = readFileSync(path);
        if (source.length < 1024) continue;
        writeFileSync(
          `${path}.br`,
          brotliCompressSync(source, {
            params: {
              [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
              [constants.BROTLI_PARAM_SIZE_HINT]: source.length,
            },
          }),
        );
        writeFileSync(`${path}.gz`, gzipSync(source, { level: 9 }));
      }
    },
  };
}

/**
 * Every script of the build opens with V8's explicit compile hint (`//# allFunctionsCalledOnLoad`): the
 * browser then compiles all its functions while the file downloads, on a background thread, instead of on
 * the page's main thread the first time each runs. Nearly all of ECharts runs as the first charts draw, and
 * that main thread is what a load of the dashboard waits on (about 130 ms less drawing per load on a 2-core
 * machine, bench:dashboard). Engines without compile hints read it as a comment. Added after minification,
 * so the minifier cannot drop it; the compressed copies are made from the file with it.
 */
function compileHints(): Plugin {
  return {
    name: 'tlsrum-compile-hints',
    apply: 'build',
    generateBundle(_options, bundle) {
      for (const file of Object.values(bundle)) if (file.type === 'chunk') file.code = `${COMPILE_HINT}\n${file.code}`;
    },
  };
}

// `pnpm --filter @tlsrum/dashboard dev` serves the dashboard with hot reload and sends API calls to a
// collector on 127.0.0.1:8787 (or COLLECTOR_URL); `build` writes dist/, which the collector serves at /.
// The entry chunk is ECharts (≈ 560 kB of 634 kB); the warning limit sits just above it so that a new
// dependency, or the map data leaving its own chunk (world.ts), shows in the build output.
export default defineConfig({
  base: './',
  plugins: [
    guides({
      alerts: './guides/alerts.md',
      whatif: './guides/whatif.md',
      'server-timing': '../docs/server-timing.md',
    }),
    countryNamesModule(),
    compileHints(),
    precompressed(),
  ],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    chunkSizeWarningLimit: 700,
    // The dashboard, and the "Add your site" page site owners register with.
    rollupOptions: {
      input: {
        main: fileURLToPath(new URL('index.html', import.meta.url)),
        'add-site': fileURLToPath(new URL('add-site.html', import.meta.url)),
      },
    },
  },
  server: { proxy: { '/v1': process.env.COLLECTOR_URL ?? 'http://127.0.0.1:8787' } },
});
