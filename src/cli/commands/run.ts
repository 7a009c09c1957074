/**
 * `tinyhost run`: runs this module. `--local <dir>` runs flows from YAML manifests in this process
 * (./run-local.ts); without it, the module runs against a cluster (`--name`, `--namespace`, as the
 * Go CLI's `run`, runtime-spec §9) through ./run-cluster.ts.
 */
import type { CommandRunner } from "../command.ts";

/** Help text of `tinyhost run` (loads both modes' flag lists). */
export async function runUsage(): Promise<string> {
  const [{ runLocalUsage }, { runClusterHelp }] = await Promise.all([import("./run-local.ts"), import("./run-cluster.ts")]);
  return `Usage:
  tinyhost run --local <dir> [flags]             run flows from manifests, no cluster
  tinyhost run --name <module> --namespace <ns>  run against a cluster

${runLocalUsage()}

${runClusterHelp()}`;
}

/** The `run` sub-command. Exit codes: 0 clean stop, 1 failure, 2 usage error. */
export const runCommand: CommandRunner = {
  name: "run",
  async run(args) {
    if (args.includes("--help") || args.includes("-h")) {
      console.log(await runUsage());
      return 0;
    }
    // Each mode loads only its own code: local mode never loads the operator (cold start).
    if (args.some((a) => a === "--local" || a.startsWith("--local="))) return (await import("./run-local.ts")).runLocal(args);
    return (await import("./run-cluster.ts")).runCluster(args);
  },
};
