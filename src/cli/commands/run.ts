/**
 * `tinyhost run`: runs this module. `--local <dir>` runs flows from YAML manifests in this process
 * (./run-local.ts); without it, the module runs against a cluster (`--name`, `--namespace`, as the
 * Go CLI's `run`, runtime-spec §9) — not built yet.
 */
import type { Command } from "../cli.ts";
import { RUN_LOCAL_USAGE, runLocal } from "./run-local.ts";

/** Help text of `tinyhost run`. */
export const RUN_USAGE = `Usage:
  tinyhost run --local <dir> [flags]             run flows from manifests, no cluster
  tinyhost run --name <module> --namespace <ns>  run against a cluster (not built yet)

${RUN_LOCAL_USAGE}`;

/** Cluster mode of `run` is not implemented yet. code `"NOT_BUILT"`; exit code 1. */
export const CLUSTER_NOT_BUILT =
  "cluster mode is not built yet: `tinyhost run --name <module> --namespace <ns>` will run against a cluster; for now use `tinyhost run --local <dir>`";

/** Runs the cluster mode (a clear error until it exists). */
async function runCluster(): Promise<number> {
  console.error(`tinyhost run: ${CLUSTER_NOT_BUILT} [NOT_BUILT]`);
  return 1;
}

/** The `run` sub-command. Exit codes: 0 clean stop, 1 failure, 2 usage error. */
export const runCommand: Command = {
  name: "run",
  summary: "run the module: --local <dir> runs flows from YAML manifests without a cluster",
  async run(args) {
    if (args.includes("--help") || args.includes("-h")) {
      console.log(RUN_USAGE);
      return 0;
    }
    if (args.some((a) => a === "--local" || a.startsWith("--local="))) return runLocal(args);
    return runCluster();
  },
};
