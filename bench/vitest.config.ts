import { defineConfig } from 'vitest/config';

// Only the report's own tests: the benches themselves are run by hand, never by `pnpm test`.
export default defineConfig({ test: { name: 'bench', include: ['test/**/*.test.ts'] } });
