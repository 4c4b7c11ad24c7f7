/**
 * Builds the extension for Chromium and Firefox: `dist/<target>/` (unpacked, with its manifest.json)
 * and `dist/tlsrum-<target>-<version>.zip`. Plain Vite, three builds per target:
 * - extension pages (onboarding, popup, options): one multi-page build, ES modules;
 * - background and content script: each one self-contained classic script (IIFE). Content scripts
 *   cannot be modules, and a single file keeps Firefox's event page and Chromium's service worker
 *   identical.
 * Usage: tsx scripts/build.ts [chromium|firefox]...
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { zipSync } from 'fflate';
import { build, type InlineConfig } from 'vite';
import { manifestFor, TARGETS, type Target } from '../src/manifest';
import { copyLocales } from './locales';
import { renderIcons } from './icons';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };

function common(target: Target, outDir: string): InlineConfig {
  return {
    configFile: false,
    root: src,
    logLevel: 'warn',
    base: './',
    define: { __TARGET__: JSON.stringify(target), __VERSION__: JSON.stringify(pkg.version) },
    build: {
      outDir,
      emptyOutDir: false,
      target: 'es2022',
      minify: true,
      sourcemap: false,
      modulePreload: false,
      reportCompressedSize: false,
    },
  };
}

async function buildScript(target: Target, outDir: string, entry: string, name: string): Promise<void> {
  const base = common(target, outDir);
  await build({
    ...base,
    build: {
      ...base.build,
      lib: { entry: join(src, entry), formats: ['iife'], name: `tlsrum_${name}`, fileName: () => `${name}.js` },
    },
  });
}

export async function buildTarget(target: Target): Promise<{ dir: string; zip: string }> {
  const outDir = join(root, 'dist', target);
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const base = common(target, outDir);
  await build({
    ...base,
    build: {
      ...base.build,
      rollupOptions: {
        input: {
          onboarding: join(src, 'onboarding/index.html'),
          popup: join(src, 'popup/index.html'),
          options: join(src, 'options/index.html'),
        },
      },
    },
  });
  await buildScript(target, outDir, 'background/index.ts', 'background');
  await buildScript(target, outDir, 'content/index.ts', 'content');
  renderIcons(src, outDir);
  copyLocales(root, outDir);
  writeFileSync(join(outDir, 'manifest.json'), `${JSON.stringify(manifestFor(target, pkg.version), null, 2)}\n`);
  const zip = join(root, 'dist', `tlsrum-${target}-${pkg.version}.zip`);
  writeFileSync(zip, zipSync(filesOf(outDir), { level: 9, mtime: new Date('2020-01-01T00:00:00Z') }));
  return { dir: outDir, zip };
}

/** The folder as fflate's `{ 'path/in/zip': bytes }`, sorted so the zip is reproducible. */
function filesOf(dir: string): Record<string, Uint8Array> {
  const out: Record<string, Uint8Array> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out[relative(dir, p).split('\\').join('/')] = readFileSync(p);
    }
  };
  walk(dir);
  return out;
}

export async function buildAll(targets: readonly Target[] = TARGETS): Promise<void> {
  for (const t of targets) await buildTarget(t);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const wanted = process.argv.slice(2) as Target[];
  for (const t of wanted) if (!TARGETS.includes(t)) throw new Error(`unknown target "${t}" (chromium, firefox)`);
  const started = Date.now();
  for (const t of wanted.length ? wanted : TARGETS) {
    const { dir, zip } = await buildTarget(t);
    console.log(`${t}: ${relative(process.cwd(), dir)}/ and ${relative(process.cwd(), zip)}`);
  }
  console.log(`built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
