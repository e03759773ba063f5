// Prints the slowest test files at the end of a run (so the next slow-down is visible in every
// CI log), then one closing `N passed, N failed` line that counts test cases across projects.
import type { Reporter, TestModule } from 'vitest/node';

const SHOWN = 15;

export default class SlowestFilesReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const rows = testModules
      .map((m) => ({ project: m.project.name, file: m.relativeModuleId, ms: m.diagnostic().duration }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, SHOWN);
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const m of testModules) {
      for (const test of m.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
      }
      // A file that failed to load has no tests to count but is a failure all the same.
      if (m.state() === 'failed' && [...m.children.allTests()].length === 0) failed++;
    }
    const lines = [`Slowest ${rows.length} test files:`];
    for (const r of rows) lines.push(`  ${(r.ms / 1000).toFixed(1).padStart(7)} s  ${r.project.padEnd(9)} ${r.file}`);
    lines.push(`${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`);
    process.stdout.write(`\n${lines.join('\n')}\n`);
  }
}
