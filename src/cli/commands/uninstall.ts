/**
 * `tinyhost uninstall`: reverses `tinyhost provision` for one release (src/provision/uninstall.ts):
 * the TinyModule first (the chart's pre-delete step), then the release objects in reverse order;
 * `--with-addons` also removes the collector and the broker, `--delete-namespace` the namespace.
 * Flags: the shared parser of ../flags.ts.
 */
import type { CommandRunner } from "../command.ts";
import { FlagError, parseFlags } from "../flags.ts";
import { createKubeClient } from "../../k8s/client/index.ts";
import {
  DEFAULT_NAMESPACE,
  DEFAULT_RELEASE,
  ProvisionInputError,
  resolveOptions,
  uninstall,
  uninstallTargets,
  type AppliedObject,
} from "../../provision/index.ts";
import { messageOf } from "../../core/errors.ts";

/** Help text of `tinyhost uninstall`. */
export const UNINSTALL_USAGE = `Usage: tinyhost uninstall [flags]

Removes what tinyhost provision installed for one release, in this order:
  TinyModule <name> (as the chart's pre-delete hook) → KEDA's ScaledObject <name>-scaler and
  TriggerAuthentication <name>-scaler and the broker Job <name>-broker-setup (of --autoscale; tried
  whether or not the release was autoscaled) → Deployment → Ingress → Service → Roles and
  RoleBindings → ServiceAccount → the ClusterRole <name>-<ns>-extra of declared cluster-wide rules
  (and the ClusterRole of earlier tinyhost versions); the RBAC only once the module's pods have
  exited (at most 30 s), so they can release their leader Lease.
Objects not labelled app.kubernetes.io/managed-by=tinyhost are kept. The CRDs are never removed
(they hold every flow in the cluster); the broker's auth Secret and volume claims only with the namespace.

Flags:
  --name <module>        release and module name (default ${DEFAULT_RELEASE})
  -n, --namespace <ns>   namespace (default ${DEFAULT_NAMESPACE})
  --with-addons          also remove the OTEL collector and the NATS broker (shared by every module
                         of the namespace)
  --delete-namespace     also delete the namespace and everything left in it
  --dry-run              print what would be removed, in order; no cluster needed
  --kubeconfig <path>    kubeconfig file (default $KUBECONFIG, in-cluster, ~/.kube/config)
  --context <name>       kubeconfig context (default its current-context)`;

function line(o: AppliedObject): string {
  return `${o.kind.toLowerCase()}/${o.name}${o.namespace ? ` (${o.namespace})` : ""} ${o.result}`;
}

/** The `uninstall` sub-command. Exit codes: 0 done, 1 a cluster step failed, 2 usage error. */
export const uninstallCommand: CommandRunner = {
  name: "uninstall",
  async run(args) {
    let values;
    let options;
    try {
      values = parseFlags(args, {
        name: { type: "string" },
        namespace: { type: "string", short: "n" },
        "with-addons": { type: "boolean" },
        "delete-namespace": { type: "boolean" },
        "dry-run": { type: "boolean" },
        kubeconfig: { type: "string", valueName: "a path" },
        context: { type: "string" },
        help: { type: "boolean", short: "h" },
      }).values;
      if (values.help) {
        console.log(UNINSTALL_USAGE);
        return 0;
      }
      options = resolveOptions({
        ...(values.name !== undefined ? { name: values.name } : {}),
        ...(values.namespace !== undefined ? { namespace: values.namespace } : {}),
      });
    } catch (e) {
      const message = messageOf(e);
      if (!(e instanceof ProvisionInputError) && !(e instanceof FlagError)) throw e;
      console.error(`tinyhost uninstall: ${message}\n\n${UNINSTALL_USAGE}`);
      return 2;
    }
    const what = { addons: values["with-addons"] === true, deleteNamespace: values["delete-namespace"] === true };
    if (values["dry-run"]) {
      console.log(`tinymodule/${options.release} (${options.namespace})`);
      for (const t of uninstallTargets(options, what)) console.log(`${t.kind.toLowerCase()}/${t.name}${t.namespace ? ` (${t.namespace})` : ""}`);
      return 0;
    }
    try {
      const kube = await createKubeClient({
        ...(values.kubeconfig ? { kubeconfig: values.kubeconfig } : {}),
        ...(values.context ? { context: values.context } : {}),
      });
      const objects = await uninstall(kube, options, { ...what, onObject: (o) => console.log(line(o)) });
      const deleted = objects.filter((o) => o.result === "deleted").length;
      console.log(`uninstalled release ${options.release} from ${options.namespace}: ${deleted} objects deleted`);
      return 0;
    } catch (e) {
      const code = (e as { code?: unknown }).code;
      console.error(`tinyhost uninstall: ${messageOf(e)}${typeof code === "string" ? ` [${code}]` : ""}`);
      return 1;
    }
  },
};
