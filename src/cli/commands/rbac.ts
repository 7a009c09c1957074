/**
 * `tinyhost rbac`: prints the least-privilege RBAC a tinyhost module needs — the ServiceAccount and
 * the three Roles with their RoleBindings `tinyhost provision` applies, from the same builder
 * (src/provision/rbac.ts, release.ts), ready for `kubectl apply -f -`.
 */
import type { CommandRunner } from "../command.ts";
import { FlagError, parseFlags } from "../flags.ts";
import {
  DEFAULT_NAMESPACE,
  DEFAULT_RELEASE,
  ProvisionInputError,
  managerServiceAccount,
  releaseRbac,
  resolveOptions,
  toYamlStream,
} from "../../provision/index.ts";

/** Help text of `tinyhost rbac`. */
export const RBAC_USAGE = `Usage: tinyhost rbac [--name <module>] [--namespace <ns>] [--with-cr-helpers]

Prints, as YAML, the ServiceAccount <name>-controller-manager and the Roles it is bound to in the
namespace (what tinyhost provision applies; each Role is followed by its RoleBinding):
  Role <name>-manager-role            TinyNodes; TinyModules list/watch/create, its own get/update/patch
  Role <name>-leader-election-role    leases create; get/update of the <name>-lock Lease only
  Role <name>-extra                   pods get; services and ingresses list, and get/update/patch of
                                      <name>-manager-service / <name>-manager-ingress only (ExposePort)

Flags:
  --name <module>       release and module name (default ${DEFAULT_RELEASE})
  -n, --namespace <ns>  runtime namespace (default ${DEFAULT_NAMESPACE})
  --with-cr-helpers     the components use the CR helpers: also grant tinyflows, tinyprojects,
                        tinywidgetpages, tinyscenarios and tinynodes create/delete`;

/** Flags of `rbac` (parsed by src/cli/flags.ts). */
export const RBAC_FLAGS = {
  name: { type: "string" },
  namespace: { type: "string", short: "n" },
  "with-cr-helpers": { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

/** The `rbac` sub-command. Exit codes: 0 printed, 2 usage error. */
export const rbacCommand: CommandRunner = {
  name: "rbac",
  async run(args) {
    if (args.includes("--help") || args.includes("-h")) {
      console.log(RBAC_USAGE);
      return 0;
    }
    try {
      const flags = parseFlags(args, RBAC_FLAGS).values;
      const options = resolveOptions({
        name: flags.name,
        namespace: flags.namespace,
        withCrHelpers: flags["with-cr-helpers"] === true,
      });
      process.stdout.write(toYamlStream([managerServiceAccount(options), ...releaseRbac(options)]));
      return 0;
    } catch (e) {
      if (!(e instanceof ProvisionInputError || e instanceof FlagError)) throw e;
      console.error(`tinyhost rbac: ${e.message}\n\n${RBAC_USAGE}`);
      return 2;
    }
  },
};
