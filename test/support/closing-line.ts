/**
 * One plain closing line after vitest's own summary, `vitest: N passed, N failed`,
 * for whoever reads a long log (CI's among them). A run that executed no test is
 * a failure, not a pass.
 */
import type { Reporter, TestModule } from "vitest/node";

export default class ClosingLine implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") passed++;
        else if (state === "failed") failed++;
      }
    }
    console.log(`vitest: ${passed} passed, ${failed} failed`);
    if (passed + failed === 0) process.exitCode = 1;
  }
}
