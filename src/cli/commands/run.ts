/**
 * `tinyhost run`: runs this module. `--local <dir>` runs flows from YAML manifests in this process
 * (./run-local.ts); without it, the module runs against a cluster (`--name`, `--namespace`, as the
 * Go CLI's `run`, runtime-spec §9) through ./run-cluster.ts.
 */
import type { Command } from "../cli.ts";
import { RUN_LOCAL_USAGE, runLocal } from "./run-local.ts";
import { RUN_CLUSTER_HELP, runCluster } from "./run-cluster.ts";

/** Help text of `tinyhost run`. */
export const RUN_USAGE = `Usage:
  tinyhost run --local <dir> [flags]             run flows from manifests, no cluster
  tinyhost run --name <module> --namespace <ns>  run against a cluster

${RUN_LOCAL_USAGE}

${RUN_CLUSTER_HELP}`;

/** The `run` sub-command. Exit codes: 0 clean stop, 1 failure, 2 usage error. */
export const runCommand: Command = {
  name: "run",
  summary: "run the module against a cluster, or with --local <dir> from YAML manifests without one",
  async run(args) {
    if (args.includes("--help") || args.includes("-h")) {
      console.log(RUN_USAGE);
      return 0;
    }
    if (args.some((a) => a === "--local" || a.startsWith("--local="))) return runLocal(args);
    return runCluster(args);
  },
};
