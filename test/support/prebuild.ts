/**
 * The whole suite's cold builds, started at once and niced: kube-apiserver + etcd
 * (scripts/build-control-plane.sh), the Go test tools (scripts/build-go-tools.sh) and the real
 * node's binaries (scripts/build-node.sh) and KEDA's operator and metrics adapter (scripts/build-keda.sh,
 * for the scaling proof). On a fresh machine they run beside the unit tests and
 * the first integration files instead of one after another when a test first needs them; the
 * callers that need a binary (control-plane.ts, go-tools.ts, real-node/node.ts) run the same
 * idempotent scripts, which wait on the build's lock and then find it done. With warm caches each
 * script exits at once.
 */
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../..");
const SCRIPTS = ["build-control-plane.sh", "build-go-tools.sh", "build-node.sh", "build-keda.sh"];

let started = false;

/**
 * Starts every cold build in the background at nice 10, once per process; logs one line per
 * script that did work or failed. Never throws: the test that needs a binary reports a failure.
 */
export function startPrebuilds(): void {
  if (started) return;
  started = true;
  for (const script of SCRIPTS) {
    const t0 = performance.now();
    const proc = Bun.spawn(["nice", "-n", "10", "bash", join(ROOT, "scripts", script)], { stdout: "ignore", stderr: "pipe" });
    void (async () => {
      const err = await new Response(proc.stderr).text();
      const code = await proc.exited;
      const s = Math.round((performance.now() - t0) / 1000);
      if (code !== 0) console.error(`[prebuild] ${script} failed (exit ${code}) after ${s} s: ${err.trim().split("\n").pop()}`);
      else if (s > 5) console.error(`[prebuild] ${script} done in ${s} s`);
    })();
  }
}
