#!/usr/bin/env node
// Builds the dashboard (dashboard/dist) when it has not been built yet, so that `pnpm start` and
// `pnpm demo` serve it on a fresh clone. `--force` rebuilds. The collector serves whatever is there.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const index = fileURLToPath(new URL('../dashboard/dist/index.html', import.meta.url));
if (existsSync(index) && !process.argv.includes('--force')) process.exit(0);
console.log('tlsrum: building the dashboard (dashboard/dist)…');
execFileSync('pnpm', ['--filter', '@tlsrum/dashboard', 'build'], {
  stdio: 'inherit',
  cwd: fileURLToPath(new URL('..', import.meta.url)),
});
