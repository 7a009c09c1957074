/**
 * `tinyhost pre-install`: the chart's pre-install/pre-upgrade hook Job (`/manager pre-install`,
 * templates/jobs.yaml; Go cli/pre-install.go). Checks the install namespace — `RELEASE_NAMESPACE`
 * (the Job injects it from the pod's namespace), else `--namespace` (default "tinysystems") — is
 * not reserved and is labelled `tinysystems.io/managed=true`. On refusal the reason goes to stderr
 * and the exit code is 1, so Helm stops the install before any release object lands.
 * Given a broker (`--nats-url`), it then creates the JetStream streams and the
 * module's business consumer, so they exist before the first pod and after the last
 * (src/provision/hooks/broker-prepare.ts); `--broker-only` does only that (provision's broker Job).
 */
import type { CommandRunner } from "../command.ts";
import { HOOK_FLAGS_HELP, HookUsageError, parseHookFlags } from "../hook-flags.ts";
import { createKubeClient } from "../../k8s/client/index.ts";
import { checkInstallNamespace, checkNamespaceName, InstallCheckError, kubeconfigFailure } from "../../provision/hooks/install-check.ts";
import { logger } from "../../telemetry/log.ts";
import { BrokerPrepareError, prepareBroker } from "../../provision/hooks/broker-prepare.ts";
import { BROKER_FLAGS_HELP } from "../hook-flags.ts";

/** Namespace when neither `RELEASE_NAMESPACE` nor `--namespace` is given (Go's flag default). */
export const DEFAULT_HOOK_NAMESPACE = "tinysystems";

/** Help text of `tinyhost pre-install`. */
export const PRE_INSTALL_USAGE = `Usage: tinyhost pre-install [flags]

The chart's pre-install hook: refuses to install into a reserved namespace (default, kube-system,
kube-public, kube-node-lease) or one not labelled tinysystems.io/managed=true. The namespace is
$RELEASE_NAMESPACE, else --namespace (default "${DEFAULT_HOOK_NAMESPACE}"). With a broker URL it
then creates the JetStream streams and the module's durable business consumer (<name> on
module-edges), so they outlive the module's pods (a module scaled to zero keeps its backlog).
Exit 0 = install may go on.

${HOOK_FLAGS_HELP}
${BROKER_FLAGS_HELP}`;

/** The `pre-install` sub-command. Exit codes: 0 namespace accepted (and broker prepared), 1 refused or broker failed, 2 usage error. */
export const preInstallCommand: CommandRunner = {
  name: "pre-install",
  async run(args) {
    let flags;
    try {
      flags = parseHookFlags(args, { broker: true });
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
    // Only the flag, not TINY_NATS_URL: a hook run as Go's (no broker flag) behaves as Go's.
    const natsUrl = flags.natsUrl;
    if (flags.brokerOnly && natsUrl === undefined) {
      console.error(`tinyhost pre-install: --broker-only needs --nats-url\n\n${PRE_INSTALL_USAGE}`);
      return 2;
    }
    if (natsUrl !== undefined && !flags.name) {
      console.error(
        `tinyhost pre-install: --name is needed to create the module's business consumer on ${natsUrl.replace(/\/\/[^@/]*@/, "//***@")}\n\n${PRE_INSTALL_USAGE}`,
      );
      return 2;
    }
    if (!flags.brokerOnly && !(await checkNamespace(namespace, flags.kubeconfig, env, log))) return 1;
    if (natsUrl === undefined) return 0;
    try {
      const done = await prepareBroker(natsUrl, flags.name!, { onRetry: (why) => log.warn({ err: why }, "pre-install: broker not ready; retrying") });
      log.info(done, `pre-install: business consumer ${done.consumer} ${done.outcome}`);
      return 0;
    } catch (e) {
      if (!(e instanceof BrokerPrepareError)) throw e;
      console.error(e.message);
      return 1;
    }
  },
};

/** The namespace check; false (the reason on stderr) when refused. */
async function checkNamespace(namespace: string, kubeconfig: string | undefined, env: NodeJS.ProcessEnv, log: typeof logger): Promise<boolean> {
  log.info({ namespace }, "pre-install: validating install namespace");
  try {
    checkNamespaceName(namespace);
    let kube;
    try {
      kube = await createKubeClient({ ...(kubeconfig ? { kubeconfig } : {}), env });
    } catch (e) {
      throw kubeconfigFailure(namespace, e);
    }
    await checkInstallNamespace(kube, namespace);
  } catch (e) {
    if (!(e instanceof InstallCheckError)) throw e;
    console.error(e.message);
    return false;
  }
  log.info({ namespace }, "pre-install: namespace OK");
  return true;
}
