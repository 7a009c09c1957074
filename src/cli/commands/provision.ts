/**
 * `tinyhost provision`: installs what a tinyhost module needs in a cluster — namespace, CRDs,
 * NATS broker, OTEL collector and the module release — by server-side apply (src/provision;
 * provision.md §2, §8), with the RBAC the module's components declare in `requirements` (the
 * bundled set, plus `--components <dir>`). `--dry-run` prints the manifests instead and needs no cluster.
 */
import type { CommandRunner } from "../command.ts";
import { FlagError, parseFlags } from "../flags.ts";
import { createKubeClient } from "../../k8s/client/index.ts";
import { provisionedComponentNeeds } from "../component-set.ts";
import {
  DEFAULT_IMAGE,
  DEFAULT_INGRESS_CLASS,
  DEFAULT_NAMESPACE,
  DEFAULT_PROVISION_NATS_CONNECT_WAIT_MS,
  DEFAULT_PROVISION_STOP_DELAY_MS,
  MAX_PROVISION_STOP_DELAY_MS,
  DEFAULT_RELEASE,
  dryRunPlan,
  NATS_IMAGE,
  OTEL_IMAGE,
  planManifests,
  provision,
  ProvisionInputError,
  resolveOptions,
  toYamlStream,
  type AppliedObject,
} from "../../provision/index.ts";
import { messageOf } from "../../core/errors.ts";
import { scaleToZeroCheck } from "../scaling-check.ts";

/** Help text of `tinyhost provision`. */
export const PROVISION_USAGE = `Usage: tinyhost provision [flags]

Installs into the cluster, by server-side apply (field manager "tinyhost"), in this order:
  Namespace (label tinysystems.io/managed=true) → the 7 TinySystems CRDs → NATS broker
  (auth Secret tinysystems-nats-auth created once and never replaced, StatefulSet with a 2Gi
  JetStream volume, Services) → OTEL collector → the module release (ServiceAccount, RBAC,
  <name>-manager-service, <name>-manager-ingress without rules/tls, <name>-controller-manager).
Re-running changes nothing unless an option changed.

Flags:
  --dry-run                print every manifest as multi-document YAML; no cluster needed
  -n, --namespace <ns>     runtime namespace (default ${DEFAULT_NAMESPACE})
  --name <module>          release and module name, sanitized (default ${DEFAULT_RELEASE})
  --image <repo:tag>       module image (default ${DEFAULT_IMAGE})
  --version <x.y.z>        module version passed to run (default: the image tag)
  --nats / --no-nats       install the NATS broker and set TINY_NATS_URL (default on)
  --otel / --no-otel       install the OTEL collector and set OTLP_DSN (default on)
  --nats-image <ref>       broker image (default ${NATS_IMAGE}; \`npm run image -- nats\` builds one offline)
  --otel-image <ref>       collector image (default ${OTEL_IMAGE})
  --nats-replicas <n>      broker servers: 1 (default), or 3 or 5 for a JetStream cluster; the module
                           keeps its streams and run ledger at as many replicas
  --nats-connect-wait-ms <ms>  with the broker: the module retries its first NATS connect this long
                           before falling back to gRPC, as the broker starts with it (0-600000,
                           default ${DEFAULT_PROVISION_NATS_CONNECT_WAIT_MS}; 0 = one attempt, as Go; TINYHOST_NATS_CONNECT_WAIT_MS);
                           a startup probe on /healthz covers the wait
  --stop-delay-ms <ms>     on SIGTERM the module keeps serving this long (readiness 503) before it
                           drains, so an Ingress drops the pod first and a rollout loses no request
                           (0-${MAX_PROVISION_STOP_DELAY_MS}, default ${DEFAULT_PROVISION_STOP_DELAY_MS}; TINYHOST_STOP_DELAY_MS)
  --ingress-suffix <host>  tinysystems.io/ingress-hostname-suffix on the manager Ingress
  --ingress-class <class>  ingressClassName of the manager Ingress (default ${DEFAULT_INGRESS_CLASS})
  --with-cr-helpers        grant tinyflows/tinyprojects/tinywidgetpages/tinyscenarios (see tinyhost rbac)
  --components <dir>       the module's component files, on top of the bundled ones (as run --components
                           serves them): the RBAC rules and Secrets their requirements declare are granted
                           (Role <name>-extra; ClusterRole <name>-<ns>-extra for cluster-wide rules)
  --autoscale <spec>       KEDA scales the module on its JetStream backlog: "on" or min=,max=,lag=,
                           activation=,polling=,cooldown= (defaults min=0,max=10,lag=256,activation=0,
                           polling=10,cooldown=300); "off"/"none" = no autoscaling. Needs the broker (not
                           with --no-nats) and KEDA in the cluster (checked before anything is applied);
                           applies a ScaledObject <name>-scaler, leaves the Deployment's replicas to it,
                           sets TINYHOST_AUTOSCALE_MIN on the module, and runs Job <name>-broker-setup
                           creating the stream and consumer before the first pod
  --keda-endpoint <h:p>    broker monitoring endpoint KEDA reads (default tinysystems-nats-headless.<ns>.svc:8222)
  --keda-auth-secret <s>   Secret with natsServerMonitoringEndpoint and account: a TriggerAuthentication reads them
  --manifests <dir>        the module's TinyNode manifests: min=0 is refused when a node there holds a
                           server or a timer (http_server, ticker, cron), with the reason; a directory
                           with no node of the module is refused too
  --kubeconfig <path>      kubeconfig file (default $KUBECONFIG, in-cluster, ~/.kube/config)
  --context <name>         kubeconfig context (default its current-context)`;

/** Flags of `provision` (parsed by src/cli/flags.ts; `--no-nats`/`--no-otel` negate the booleans). */
export const PROVISION_FLAGS = {
  "dry-run": { type: "boolean" },
  namespace: { type: "string", short: "n" },
  name: { type: "string" },
  image: { type: "string" },
  version: { type: "string" },
  nats: { type: "boolean" },
  otel: { type: "boolean" },
  "nats-image": { type: "string" },
  "otel-image": { type: "string" },
  "nats-replicas": { type: "string", valueName: "1, 3 or 5" },
  "nats-connect-wait-ms": { type: "string", valueName: "a number of ms" },
  "stop-delay-ms": { type: "string", valueName: "a number of ms" },
  "ingress-suffix": { type: "string" },
  "ingress-class": { type: "string" },
  "with-cr-helpers": { type: "boolean" },
  components: { type: "string", valueName: "a directory" },
  autoscale: { type: "string", valueName: "a spec" },
  "keda-endpoint": { type: "string", valueName: "host:port" },
  "keda-auth-secret": { type: "string", valueName: "a Secret name" },
  manifests: { type: "string", valueName: "a directory" },
  kubeconfig: { type: "string" },
  context: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

function line(o: AppliedObject): string {
  return `${o.kind.toLowerCase()}/${o.name}${o.namespace ? ` (${o.namespace})` : ""} ${o.result}`;
}

/** The `provision` sub-command. Exit codes: 0 done, 1 the components did not load or a cluster step failed, 2 usage error. */
export const provisionCommand: CommandRunner = {
  name: "provision",
  async run(args) {
    if (args.includes("--help") || args.includes("-h")) {
      console.log(PROVISION_USAGE);
      return 0;
    }
    let flags;
    let options;
    try {
      flags = parseFlags(args, PROVISION_FLAGS).values;
      options = resolveOptions({
        namespace: flags.namespace,
        name: flags.name,
        image: flags.image,
        version: flags.version,
        nats: flags.nats,
        otel: flags.otel,
        natsImage: flags["nats-image"],
        otelImage: flags["otel-image"],
        natsReplicas: flags["nats-replicas"],
        natsConnectWaitMs: flags["nats-connect-wait-ms"],
        stopDelayMs: flags["stop-delay-ms"],
        ingressSuffix: flags["ingress-suffix"],
        ingressClass: flags["ingress-class"],
        withCrHelpers: flags["with-cr-helpers"],
        autoscale: flags.autoscale,
        kedaEndpoint: flags["keda-endpoint"],
        kedaAuthSecret: flags["keda-auth-secret"],
      });
    } catch (e) {
      if (!(e instanceof ProvisionInputError || e instanceof FlagError)) throw e;
      console.error(`tinyhost provision: ${e.message}\n\n${PROVISION_USAGE}`);
      return 2;
    }
    try {
      options = { ...options, components: await provisionedComponentNeeds(flags.components) };
    } catch (e) {
      const code = (e as { code?: unknown }).code;
      console.error(`tinyhost provision: ${messageOf(e)}${typeof code === "string" ? ` [${code}]` : ""}`);
      return 1;
    }
    try {
      if (options.autoscale)
        for (const w of await scaleToZeroCheck(options.autoscale, options.components ?? [], options.release, flags.manifests)) console.error(`warning: ${w}`);
      else if (flags.manifests !== undefined) throw new ProvisionInputError("--manifests", "needs --autoscale");
    } catch (e) {
      if (!(e instanceof ProvisionInputError)) throw e;
      console.error(`tinyhost provision: ${e.message}`);
      return 2;
    }
    if (flags["dry-run"] === true) {
      process.stdout.write(toYamlStream(planManifests(dryRunPlan(options)).map((m) => m.object)));
      return 0;
    }
    try {
      const { kubeconfig, context } = flags;
      const kube = await createKubeClient({ ...(kubeconfig ? { kubeconfig } : {}), ...(context ? { context } : {}) });
      const result = await provision(kube, options, { onObject: (o) => console.log(line(o)) });
      const changed = result.objects.filter((o) => o.result === "created" || o.result === "configured").length;
      console.log(
        `provisioned release ${options.release} in ${options.namespace}: ${result.objects.length} objects, ${changed} created or changed` +
          (result.brokerUrl ? `; broker ${result.brokerUrl}` : ""),
      );
      return 0;
    } catch (e) {
      const code = (e as { code?: unknown }).code;
      console.error(`tinyhost provision: ${messageOf(e)}${typeof code === "string" ? ` [${code}]` : ""}`);
      return 1;
    }
  },
};
