/**
 * Starts the shared servers of an integration run — a real kube-apiserver + etcd and a
 * nats-server — finds the Go test tools and chromium (building or installing them when missing), and hands their coordinates to `bun test` through the environment:
 * TINYHOST_CONTROL_PLANE (JSON file, read by getControlPlane) and TINYHOST_TEST_NATS_URL.
 * Everything started here dies with this process (watchdogs), also when it is killed.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startControlPlane, writeControlPlaneInfo, type ControlPlaneOptions, type OwnedControlPlane } from "./control-plane.ts";
import { ensureGoTools } from "./go-tools.ts";
import { startNats, type NatsServer } from "./nats.ts";
import { ensureDebianBinaryAsync } from "./debian-package.ts";

/** The shared servers of one run. */
export interface SuiteServers {
  env: Record<string, string>;
  controlPlane: OwnedControlPlane;
  nats: NatsServer;
  /** Stops everything and removes the run dir. Safe to call twice. */
  stop(): Promise<void>;
}

/**
 * Starts the control plane and NATS concurrently; logs how long each took.
 * @param opts.controlPlane options of the control plane (`cluster:up --real` admits ServiceAccounts).
 */
export async function startSuiteServers(opts: { controlPlane?: ControlPlaneOptions } = {}): Promise<SuiteServers> {
  const dir = mkdtempSync(join(tmpdir(), "tinyhost-run-"));
  const t0 = performance.now();
  const [controlPlane, nats, goTools, chromium] = await Promise.all([
    startControlPlane(opts.controlPlane).then((cp) => {
      console.error(`[suite] kube-apiserver ready at ${cp.server} in ${Math.round(performance.now() - t0)} ms`);
      return cp;
    }),
    startNats().then((n) => {
      console.error(`[suite] nats-server ready at ${n.url}`);
      return n;
    }),
    ensureGoTools().then((d) => {
      console.error(`[suite] Go test tools ready in ${d} after ${Math.round(performance.now() - t0)} ms`);
      return d;
    }),
    // The console's browser test drives Debian's chromium (installed here when missing).
    ensureDebianBinaryAsync("chromium").then((p) => {
      console.error(`[suite] chromium at ${p}`);
      return p;
    }),
  ]);
  const infoFile = join(dir, "control-plane.json");
  writeControlPlaneInfo(controlPlane, infoFile);
  let stopped = false;
  return {
    controlPlane,
    nats,
    env: {
      TINYHOST_CONTROL_PLANE: infoFile,
      TINYHOST_TEST_NATS_URL: nats.url,
      TINYHOST_TEST_TMP: dir,
      TINYHOST_GO_TOOLS_DIR: goTools,
      TINYHOST_CHROMIUM: chromium,
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await Promise.allSettled([controlPlane.stop(), nats.dispose()]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
