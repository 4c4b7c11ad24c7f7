// `pnpm bench <name> [args]` and `pnpm lab <command> [args]`: one root script per family instead of one per
// member. With no name, lists what there is. Each member is a script of its package (bench/ or e2e/).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const FAMILIES = {
  bench: {
    pkg: 'bench',
    about:
      'Benchmarks (not part of pnpm test): each prints ratios against a baseline measured in the same run and a JSON line last.',
    // Members that need something built first.
    before: {
      'extension-overhead': ['pnpm', ['--filter', '@tlsrum/extension', 'build']],
      dashboard: ['pnpm', ['--filter', '@tlsrum/dashboard', 'build']],
    },
  },
  lab: {
    pkg: 'e2e',
    about: 'The TLS lab: real nginx and Caddy behind delaying proxies, with server-side truth.',
    // `pnpm lab` alone, or `pnpm lab start|stop|status`, is the lab itself; the others are its reports.
    members: { accuracy: 'lab:accuracy', seeds: 'lab:seeds' },
    fallback: 'lab',
    systemDeps: true,
  },
};

const [family, name, ...rest] = process.argv.slice(2);
const f = FAMILIES[family];
if (!f) throw new Error(`unknown family ${family}`);
const scripts = JSON.parse(readFileSync(new URL(`../${f.pkg}/package.json`, import.meta.url), 'utf8')).scripts;
const members =
  f.members ??
  Object.fromEntries(
    Object.keys(scripts)
      .filter((s) => s !== 'all')
      .map((s) => [s, s]),
  );

const run = (cmd, args) => {
  const r = spawnSync(cmd, args, { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
};

if (family === 'bench' && (!name || name === '--help' || name === 'help')) {
  console.log(
    `${f.about}\n\nusage: pnpm bench <name> [args]\n\nnames:\n${Object.keys(members)
      .map((m) => `  ${m}`)
      .join('\n')}`,
  );
  console.log('\n`pnpm bench <name> --help`: what it measures, against what, its goal and its settings.');
  console.log('What each measures and its latest figures: BENCHMARKS.md.');
  process.exit(name ? 0 : 1);
}
const help = rest.includes('--help') || rest.includes('-h');
// A bench's help is its entry in the benches' catalogue (bench/help.ts); the lab's commands print their own.
if (family === 'bench' && help) run('pnpm', ['--silent', '--filter', '@tlsrum/bench', 'exec', 'tsx', 'help.ts', name]);
if (family === 'bench' && help) process.exit(0);
if (f.systemDeps && !help && name !== '--help' && name !== '-h')
  run('node', [new URL('./ensure-system-deps.mjs', import.meta.url).pathname]);
const script = members[name] ?? f.fallback;
if (!script || !scripts[script]) {
  console.error(`pnpm ${family}: no "${name}" — one of: ${Object.keys(members).join(', ')}`);
  process.exit(2);
}
const before = f.before?.[name];
if (before) run(...before);
run('pnpm', [
  '--silent',
  '--filter',
  `@tlsrum/${f.pkg}`,
  'run',
  script,
  ...(script === f.fallback && name ? [name] : []),
  ...rest,
]);
