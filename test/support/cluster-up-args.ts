/** The command line of `npm run cluster:up` (test/support/cluster-up.ts), parsed apart so a unit test pins it. */

/** What cluster:up was asked to start. */
export interface ClusterUpArgs {
  /** `--real`: a real node beside the control plane and NATS. */
  real: boolean;
  /** `--keda`: KEDA's operator and metrics adapter too (needs `--real`). */
  keda: boolean;
}

const KNOWN = ["--real", "--keda"];

/**
 * Parses cluster:up's arguments.
 * @throws Error with the message for the user: an unknown argument, or `--keda` without `--real`
 *   (KEDA scales Deployments; without the node no pod would start).
 */
export function parseClusterUpArgs(argv: readonly string[]): ClusterUpArgs {
  const unknown = argv.find((a) => !KNOWN.includes(a));
  if (unknown !== undefined) throw new Error(`unknown argument ${JSON.stringify(unknown)} (expected --real, --real --keda, or nothing)`);
  const args = { real: argv.includes("--real"), keda: argv.includes("--keda") };
  if (args.keda && !args.real) {
    throw new Error("--keda needs --real: KEDA scales Deployments, and only the real node runs their pods (npm run cluster:up -- --real --keda)");
  }
  return args;
}
