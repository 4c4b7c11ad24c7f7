/**
 * Prints, whatever the runner, the slowest test files (what to look at when `pnpm test` outgrows its
 * budget) and one closing line that any CI can read:
 *   vitest: N passed, N failed, N skipped
 */
import type { Reporter, TestModule } from 'vitest/node';

const SLOWEST = 12;

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const mod of testModules) {
      if (mod.state() === 'failed' && [...mod.children.allTests()].length === 0) failed += 1; // a file that failed to load
      for (const test of mod.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed += 1;
        else if (state === 'failed') failed += 1;
        else skipped += 1;
      }
    }
    const timed = testModules
      .map((m) => ({ name: `${m.project.name} ${m.relativeModuleId}`, s: m.diagnostic().duration / 1000 }))
      .sort((a, b) => b.s - a.s);
    const total = timed.reduce((n, t) => n + t.s, 0);
    console.log(`\nSlowest test files (of ${Math.round(total)} s in all files):`);
    for (const t of timed.slice(0, SLOWEST)) console.log(`  ${t.s.toFixed(1).padStart(7)} s  ${t.name}`);
    console.log(`\nvitest: ${passed} passed, ${failed} failed, ${skipped} skipped`);
  }
}
