/**
 * `tinyhost pre-install`: the chart's pre-install/pre-upgrade hook Job (`/manager pre-install`,
 * templates/jobs.yaml; Go cli/pre-install.go). Checks the install namespace — `RELEASE_NAMESPACE`
 * (the Job injects it from the pod's namespace), else `--namespace` (default "tinysystems") — is
 * not reserved and is labelled `tinysystems.io/managed=true`. On refusal the reason goes to stderr
 * and the exit code is 1, so Helm stops the install before any release object lands.
 */
import type { CommandRunner } from "../command.ts";
import { HOOK_FLAGS_HELP, HookUsageError, parseHookFlags } from "../hook-flags.ts";
import { createKubeClient } from "../../k8s/client/index.ts";
import { checkInstallNamespace, checkNamespaceName, InstallCheckError, kubeconfigFailure } from "../../provision/hooks/install-check.ts";
import { logger } from "../../telemetry/log.ts";

/** Namespace when neither `RELEASE_NAMESPACE` nor `--namespace` is given (Go's flag default). */
export const DEFAULT_HOOK_NAMESPACE = "tinysystems";

/** Help text of `tinyhost pre-install`. */
export const PRE_INSTALL_USAGE = `Usage: tinyhost pre-install [flags]

The chart's pre-install hook: refuses to install into a reserved namespace (default, kube-system,
kube-public, kube-node-lease) or one not labelled tinysystems.io/managed=true. The namespace is
$RELEASE_NAMESPACE, else --namespace (default "${DEFAULT_HOOK_NAMESPACE}"). Exit 0 = install may go on.

${HOOK_FLAGS_HELP}`;

/** The `pre-install` sub-command. Exit codes: 0 namespace accepted, 1 refused, 2 usage error. */
export const preInstallCommand: CommandRunner = {
  name: "pre-install",
  async run(args) {
    let flags;
    try {
      flags = parseHookFlags(args);
    } catch (e) {
      if (!(e instanceof HookUsageError)) throw e;
      console.error(`tinyhost pre-install: ${e.message}\n\n${PRE_INSTALL_USAGE}`);
      return 2;
    }
    if (flags.help) {
      console.log(PRE_INSTALL_USAGE);
      return 0;
    }
    const env = process.env;
    const namespace = env.RELEASE_NAMESPACE || (flags.namespace ?? DEFAULT_HOOK_NAMESPACE);
    const log = logger.child({ component: "pre-install" });
    log.info({ namespace, module: flags.name ?? "" }, "pre-install: validating install namespace");
    try {
      checkNamespaceName(namespace);
      let kube;
      try {
        kube = await createKubeClient({ ...(flags.kubeconfig ? { kubeconfig: flags.kubeconfig } : {}), env });
      } catch (e) {
        throw kubeconfigFailure(namespace, e);
      }
      await checkInstallNamespace(kube, namespace);
    } catch (e) {
      if (!(e instanceof InstallCheckError)) throw e;
      console.error(e.message);
      return 1;
    }
    log.info({ namespace }, "pre-install: namespace OK");
    return 0;
  },
};
