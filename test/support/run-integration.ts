/**
 * `npm run test:integration`: starts the real servers once, runs test/integration with them,
 * stops them, and prints `integration: N passed, N failed`.
 */
import { runBunTest } from "./bun-test.ts";
import { startPrebuilds } from "./prebuild.ts";
import { startSuiteServers } from "./suite.ts";

/** Runs the integration suite; resolves to its counts. Extra args go to `bun test`. */
export async function runIntegration(extra: string[] = []) {
  // Paths given on the command line narrow the run; without any, the whole integration folder runs.
  const hasPath = extra.some((a) => a.startsWith("test/"));
  // The whole suite needs every cold build (the real node's included): start them all now.
  if (!hasPath) startPrebuilds();
  const servers = await startSuiteServers();
  const onSignal = () => void servers.stop().then(() => process.exit(130));
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    // In-process logs are noise in a passing run (module processes log to their own files);
    // TINYHOST_LOG_LEVEL=info brings them back when a test needs reading.
    const env = { TINYHOST_LOG_LEVEL: process.env.TINYHOST_LOG_LEVEL ?? "error", ...servers.env };
    return await runBunTest(["--timeout", "180000", ...extra, ...(hasPath ? [] : ["test/integration"])], env);
  } finally {
    await servers.stop();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}

if (import.meta.main) {
  const r = await runIntegration(process.argv.slice(2));
  console.log(`integration: ${r.passed} passed, ${r.failed} failed`);
  process.exit(r.code === 0 && r.failed === 0 ? 0 : 1);
}
