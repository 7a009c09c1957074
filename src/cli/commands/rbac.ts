/**
 * `tinyhost rbac`: prints the least-privilege roles a tinyhost module needs — the ClusterRole and
 * the two Roles `tinyhost provision` applies, from the same rule builder (src/provision/rbac.ts).
 */
import type { CommandRunner } from "../cli.ts";
import { FlagError, parseFlags } from "../flags.ts";
import {
  DEFAULT_NAMESPACE,
  DEFAULT_RELEASE,
  ProvisionInputError,
  releaseRoles,
  resolveOptions,
  toYamlStream,
} from "../../provision/index.ts";

/** Help text of `tinyhost rbac`. */
export const RBAC_USAGE = `Usage: tinyhost rbac [--name <module>] [--namespace <ns>] [--with-cr-helpers]

Prints, as YAML, the roles the module's service account needs (what tinyhost provision applies):
  ClusterRole <name>-<ns>-manager-role   TinySystems CRDs (nodes, modules, components) and events
  Role <name>-leader-election-role       leases (the <name>-lock Lease), configmaps, events
  Role <name>-extra                      pods get; services and ingresses get/list/update (ExposePort)

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
      process.stdout.write(toYamlStream(releaseRoles(options)));
      return 0;
    } catch (e) {
      if (!(e instanceof ProvisionInputError || e instanceof FlagError)) throw e;
      console.error(`tinyhost rbac: ${e.message}\n\n${RBAC_USAGE}`);
      return 2;
    }
  },
};
