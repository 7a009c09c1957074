/**
 * `npm run test:all`: unit tests, then the integration suite against real servers it starts
 * itself; prints one closing line `tests: N passed, N failed` and exits non-zero on any failure.
 */
import { runBunTest } from "./bun-test.ts";
import { startPrebuilds } from "./prebuild.ts";
import { runIntegration } from "./run-integration.ts";

const started = performance.now();
// Cold Go builds run niced beside the unit tests (they need none of them).
startPrebuilds();
// The per-test limit is given on the command line: Bun 1.4.4 ignores bunfig.toml's [test] timeout
// (its 5 s default applied, and spawn-heavy unit tests failed on a loaded machine).
const unit = await runBunTest(["--timeout", "20000", "test/unit"], { TINYHOST_LOG_LEVEL: process.env.TINYHOST_LOG_LEVEL ?? "silent" });
let integration = { code: 0, passed: 0, failed: 0, skipped: 0 };
try {
  integration = await runIntegration();
} catch (err) {
  console.error(`integration suite could not start: ${(err as Error).message}`);
  integration = { code: 1, passed: 0, failed: 1, skipped: 0 };
}
const passed = unit.passed + integration.passed;
const failed = unit.failed + integration.failed;
console.log(`unit: ${unit.passed} passed, ${unit.failed} failed`);
console.log(`integration: ${integration.passed} passed, ${integration.failed} failed`);
console.log(`(test:all took ${Math.round((performance.now() - started) / 1000)} s)`);
console.log(`tests: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 && unit.code === 0 && integration.code === 0 ? 0 : 1);
