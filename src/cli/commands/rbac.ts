/**
 * `tinyhost rbac`: prints the least-privilege RBAC a tinyhost module needs — the ServiceAccount and
 * the three Roles with their RoleBindings `tinyhost provision` applies, with what the components
 * declare in `requirements` (the bundled set plus `--components <dir>`, as provision loads them),
 * from the same builder (src/provision/rbac.ts, release.ts), ready for `kubectl apply -f -`.
 */
import type { CommandRunner } from "../command.ts";
import { provisionedComponentNeeds } from "../component-set.ts";
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
import { messageOf } from "../../core/errors.ts";

/** Help text of `tinyhost rbac`. */
export const RBAC_USAGE = `Usage: tinyhost rbac [--name <module>] [--namespace <ns>] [--with-cr-helpers] [--components <dir>]

Prints, as YAML, the ServiceAccount <name>-controller-manager and the Roles it is bound to in the
namespace (what tinyhost provision applies; each Role is followed by its RoleBinding):
  Role <name>-manager-role            TinyNodes; TinyModules list/watch/create, its own get/update/patch
  Role <name>-leader-election-role    leases create; get/update of the <name>-lock Lease only
  Role <name>-extra                   pods get; services and ingresses list, and get/update/patch of
                                      <name>-manager-service / <name>-manager-ingress only (ExposePort);
                                      then the rules and Secret reads the components declare
  ClusterRole <name>-<ns>-extra       only when a component declares cluster-wide rules (+ binding)

Flags:
  --name <module>       release and module name (default ${DEFAULT_RELEASE})
  -n, --namespace <ns>  runtime namespace (default ${DEFAULT_NAMESPACE})
  --with-cr-helpers     the components use the CR helpers: also grant tinyflows, tinyprojects,
                        tinywidgetpages, tinyscenarios and tinynodes create/delete
  --components <dir>    the module's component files, on top of the bundled ones: what their
                        requirements declare is granted, as tinyhost provision does`;

/** Flags of `rbac` (parsed by src/cli/flags.ts). */
export const RBAC_FLAGS = {
  name: { type: "string" },
  namespace: { type: "string", short: "n" },
  "with-cr-helpers": { type: "boolean" },
  components: { type: "string", valueName: "a directory" },
  help: { type: "boolean", short: "h" },
} as const;

/** The `rbac` sub-command. Exit codes: 0 printed, 1 the components did not load, 2 usage error. */
export const rbacCommand: CommandRunner = {
  name: "rbac",
  async run(args) {
    if (args.includes("--help") || args.includes("-h")) {
      console.log(RBAC_USAGE);
      return 0;
    }
    let flags;
    let options;
    try {
      flags = parseFlags(args, RBAC_FLAGS).values;
      options = resolveOptions({
        name: flags.name,
        namespace: flags.namespace,
        withCrHelpers: flags["with-cr-helpers"] === true,
      });
    } catch (e) {
      if (!(e instanceof ProvisionInputError || e instanceof FlagError)) throw e;
      console.error(`tinyhost rbac: ${e.message}\n\n${RBAC_USAGE}`);
      return 2;
    }
    try {
      options = { ...options, components: await provisionedComponentNeeds(flags.components) };
    } catch (e) {
      const code = (e as { code?: unknown }).code;
      console.error(`tinyhost rbac: ${messageOf(e)}${typeof code === "string" ? ` [${code}]` : ""}`);
      return 1;
    }
    process.stdout.write(toYamlStream([managerServiceAccount(options), ...releaseRbac(options)]));
    return 0;
  },
};
