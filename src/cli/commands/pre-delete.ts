/**
 * `tinyhost pre-delete`: the chart's pre-delete hook Job (`/manager pre-delete`, templates/jobs.yaml;
 * Go cli/pre-delete.go): deletes the module's TinyModule before Helm removes the Deployment.
 *
 * Which module: `--name`; without it (the chart's default `deleteArgs` give none) the module the
 * Job's ServiceAccount belongs to — the chart runs the Job as `<fullname>-controller-manager`, and
 * `<fullname>` is its default module name. Which namespace: `--namespace`, else
 * `RELEASE_NAMESPACE`, else the namespace of the pod's service account (the in-cluster
 * `namespace` file), else "tinysystems". Go requires `--name` and, without `--namespace`, uses
 * "tinysystems" whatever the release namespace (docs/compatibility.md "Chart hooks").
 *
 * Exit code 0 even when the deletion fails (logged as an error), as in Go: a failing pre-delete
 * hook makes `helm uninstall` fail and keeps the whole release; a stale TinyModule is the lesser harm.
 */
import type { CommandRunner } from "../command.ts";
import { HOOK_FLAGS_HELP, HookUsageError, parseHookFlags } from "../hook-flags.ts";
import { DEFAULT_HOOK_NAMESPACE } from "./pre-install.ts";
import { createKubeClient, type KubeClient } from "../../k8s/client/index.ts";
import { moduleNameFromAccount, parseServiceAccountUser, whoAmI } from "../../provision/hooks/identity.ts";
import { deleteTinyModule } from "../../provision/hooks/module-removal.ts";
import { logger } from "../../telemetry/log.ts";
import { messageOf } from "../../core/errors.ts";

/** Help text of `tinyhost pre-delete`. */
export const PRE_DELETE_USAGE = `Usage: tinyhost pre-delete [flags]

The chart's pre-delete hook: deletes TinyModule <sanitized --name> so the platform stops listing
the module. Without --name, the module of this pod's ServiceAccount (<name>-controller-manager);
namespace: --namespace, else $RELEASE_NAMESPACE, else the pod's namespace, else "${DEFAULT_HOOK_NAMESPACE}".
Exits 0 even when the deletion fails (logged), so helm uninstall is never blocked.

${HOOK_FLAGS_HELP}`;

/** Module name from the credentials' ServiceAccount, or undefined (logged) when it cannot be told. */
async function moduleFromAccount(kube: KubeClient, log: typeof logger): Promise<string | undefined> {
  let user: string;
  try {
    user = await whoAmI(kube);
  } catch (e) {
    log.error({ err: messageOf(e) }, "pre-delete: --name not given and this pod's identity cannot be read (SelfSubjectReview)");
    return undefined;
  }
  const account = parseServiceAccountUser(user);
  const name = account ? moduleNameFromAccount(account.name) : undefined;
  if (!name) log.error({ user }, "pre-delete: --name not given and the user is not a chart manager ServiceAccount (<name>-controller-manager); pass --name");
  return name;
}

/** The `pre-delete` sub-command. Exit codes: 0 (also when the deletion failed, see above), 2 usage error. */
export const preDeleteCommand: CommandRunner = {
  name: "pre-delete",
  async run(args) {
    let flags;
    try {
      flags = parseHookFlags(args);
    } catch (e) {
      if (!(e instanceof HookUsageError)) throw e;
      console.error(`tinyhost pre-delete: ${e.message}\n\n${PRE_DELETE_USAGE}`);
      return 2;
    }
    if (flags.help) {
      console.log(PRE_DELETE_USAGE);
      return 0;
    }
    const log = logger.child({ component: "pre-delete" });
    log.info("starting pre-delete hook");
    const env = process.env;
    let kube: KubeClient;
    try {
      kube = await createKubeClient({ ...(flags.kubeconfig ? { kubeconfig: flags.kubeconfig } : {}), env });
    } catch (e) {
      log.error({ err: messageOf(e) }, "unable to get kubeconfig");
      return 0;
    }
    const name = flags.name ?? (await moduleFromAccount(kube, log));
    if (!name) return 0;
    const namespace =
      flags.namespace ?? (env.RELEASE_NAMESPACE || (kube.connection.source === "in-cluster" ? kube.connection.namespace : DEFAULT_HOOK_NAMESPACE));
    try {
      const r = await deleteTinyModule(kube, name, namespace);
      log.info({ name: r.name, namespace, result: r.result }, "tinymodule deleted");
    } catch (e) {
      log.error({ err: messageOf(e), namespace }, "unable to delete tinymodule");
    }
    return 0;
  },
};
