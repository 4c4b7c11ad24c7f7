// `pnpm test`'s static checks, side by side: the type check, the lint and the format check each take tens of
// seconds on a clean clone and mostly one core each. Each one's output is printed whole, in this order, once
// it ends; the exit code is non-zero when any failed, and the failed ones are named last.
import { spawn } from 'node:child_process';

const CHECKS = ['typecheck', 'lint', 'format:check'];

const run = (script) =>
  new Promise((resolve) => {
    const started = Date.now();
    const child = spawn('pnpm', ['--silent', 'run', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('error', (e) => resolve({ script, code: 1, out: `${out}${e.message}\n`, ms: Date.now() - started }));
    child.on('close', (code) => resolve({ script, code: code ?? 1, out, ms: Date.now() - started }));
  });

const results = await Promise.all(CHECKS.map(run));
for (const r of results) {
  console.log(`== ${r.script}: ${r.code === 0 ? 'passed' : 'FAILED'} in ${(r.ms / 1000).toFixed(1)} s`);
  if (r.out.trim()) console.log(r.out.trimEnd());
}
const failed = results.filter((r) => r.code !== 0).map((r) => r.script);
if (failed.length) {
  console.error(`checks failed: ${failed.join(', ')}`);
  process.exit(1);
}
