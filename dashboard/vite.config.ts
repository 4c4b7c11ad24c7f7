import { defineConfig } from 'vite';

// `pnpm --filter @tlsrum/dashboard dev` serves the dashboard with hot reload and sends API calls to a
// collector on 127.0.0.1:8787 (or COLLECTOR_URL); `build` writes dist/, which the collector serves at /.
export default defineConfig({
  base: './',
  build: { outDir: 'dist', emptyOutDir: true, chunkSizeWarningLimit: 900 },
  server: { proxy: { '/v1': process.env.COLLECTOR_URL ?? 'http://127.0.0.1:8787' } },
});
