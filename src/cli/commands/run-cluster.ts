/**
 * `tinyhost run` in a cluster: the Go module's `run` flags and environment (runtime-spec §9, §13.2),
 * then the module manager (src/operator) until SIGTERM/SIGINT or a fatal error.
 *
 * Flags (`--flag value` or `--flag=value`):
 *   --name, -n                      module name (default "main")
 *   --also <name>                   also serve this module name (repeatable; src/operator/served.ts)
 *   --version, -v                   module version, no leading "v" (default: the tinyhost version;
 *                                   Go requires the flag — we default it)
 *   --namespace                     namespace (default "tinysystems")
 *   --kubeconfig, -k                kubeconfig path (default: $KUBECONFIG, in-cluster, ~/.kube/config)
 *   --metrics-bind-address, -m      extra /metrics listener ("0" or unset: none)
 *   --health-probe-bind-address, -t /healthz, /readyz, /metrics (default ":8081")
 *   --grpc-server-bind-address, -g  gRPC listener when NATS is not used (default ":0")
 *   --components <dir>              components directory (dev discovery); default: the compiled-in
 *                                   set in the binary, else ./components, else the bundled set
 * Environment: HOSTNAME (required), TINY_NATS_URL, TINY_NATS_TRANSPORT, SELF_SERVICE_HOST,
 * OTLP_DSN / OTEL_EXPORTER_OTLP_* (trace export, src/telemetry); the chart's RELEASE_NAME,
 * RELEASE_NAMESPACE, KUBERNETES_CLUSTER_DOMAIN, STORAGE_PATH are left to components, as in Go. Test/ops knobs (ms): TINYHOST_LEASE_DURATION_MS,
 * TINYHOST_RENEW_DEADLINE_MS, TINYHOST_RETRY_PERIOD_MS, TINYHOST_DRAIN_TIMEOUT_MS, TINYHOST_STOP_DELAY_MS, TINYHOST_READY_NODES_TIMEOUT_MS,
 * TINYHOST_NATS_CONNECT_WAIT_MS.
 */
import { version as tinyhostVersion } from "../../core/version.ts";
import { beginStart } from "../../operator/early.ts";
import { DEFAULT_LEASE_TIMINGS } from "../../operator/leadership.ts";
import type { ModuleOptions } from "../../operator/options.ts";
import { lazyChildLogger } from "../../telemetry/lazy-logger.ts";
import { StopSignals } from "./stop-signals.ts";
import { FlagError, parseFlags } from "../flags.ts";
import { componentsDefault, isCompiledBinary } from "../components-source.ts";
import { TinyError } from "../../core/errors.ts";
import { servedModules } from "../../operator/served.ts";
import { envInteger } from "../../operator/env-integer.ts";
import { MAX_STOP_DELAY_MS } from "../../manager/stop-delay.ts";

/**
 * Text of `tinyhost run --help` (cluster flags). The `--components` default depends on how tinyhost
 * runs (components-source.ts), so the text is rendered for that case.
 * @param compiled true for the compiled binary's wording; default: this process.
 */
export function runClusterHelp(compiled = isCompiledBinary()): string {
  return `Usage: tinyhost run [flags]

Runs this module in a Kubernetes cluster: watches TinyNodes, runs their components, elects a leader
on a Lease, serves hops over NATS or gRPC.

Flags:
  -n, --name <name>                        module name (default "main")
      --also <name>                        also serve module <name>, e.g. tinysystems/common-module-v0
                                           in place of the Go common-module (repeatable)
  -v, --version <version>                  module version, without a leading "v" (default ${tinyhostVersion})
      --namespace <ns>                     namespace of nodes, Lease and TinyModule (default "tinysystems")
  -k, --kubeconfig <path>                  kubeconfig (default: $KUBECONFIG, in-cluster, ~/.kube/config)
  -m, --metrics-bind-address <addr>        extra /metrics listener, "0" = none (default none)
  -t, --health-probe-bind-address <addr>   /healthz, /readyz and /metrics (default ":8081")
  -g, --grpc-server-bind-address <addr>    gRPC listener when TINY_NATS_URL is unset (default ":0")
      --components <dir>                   load the component files in <dir>
                                           (${componentsDefault({ compiled, bundledFallback: true })})
  -h, --help                               this text

Environment:
  HOSTNAME             pod name: Lease identity (required)
  TINYHOST_ALSO        further module names to serve, comma-separated (added to --also)
  TINY_NATS_URL        NATS server(s); unset → gRPC between modules
  TINY_NATS_TRANSPORT  "jetstream" → durable JetStream wire; anything else → core NATS
  TINYHOST_NATS_CONNECT_WAIT_MS  retry the first NATS connect this long before falling back to
                       gRPC, for a broker that starts with the module (0-600000, default 0 = one
                       attempt, as Go; tinyhost provision sets 120000)
  SELF_SERVICE_HOST    address other modules dial for gRPC (TinyModule status.addr)
  OTLP_DSN             traces over OTLP/gRPC (scheme://token@host[:port]); OTEL_EXPORTER_OTLP_* also work
  RELEASE_NAME, RELEASE_NAMESPACE, KUBERNETES_CLUSTER_DOMAIN, STORAGE_PATH, BUNDLE_*
                       set by the tinysystems-operator chart; not read by the runtime (as in Go),
                       components see them
  TINYHOST_LEASE_DURATION_MS, TINYHOST_RENEW_DEADLINE_MS, TINYHOST_RETRY_PERIOD_MS
                       Lease timings in ms (tests/ops; default 15000/10000/2000)
  TINYHOST_DRAIN_TIMEOUT_MS  bound on draining in-flight hops at shutdown (default 4000)
  TINYHOST_STOP_DELAY_MS  on SIGTERM, keep serving this long (readiness 503) before draining, so
                       the Service's endpoints and the ingress drop the pod first (0-5000, default 0;
                       tinyhost provision sets 4000)
  TINYHOST_JETSTREAM_ACK_WAIT_MS  JetStream AckWait: how long a hop held by a dead replica waits
                       before another replica gets it (default 30000, as Go)
  TINYHOST_NODE_WORKERS  concurrent TinyNode reconciles (default 64)
  TINYHOST_READY_NODES_TIMEOUT_MS  /readyz waits for the nodes of the first list to be applied
                       (component listeners bound) at most this long (default 30000; 0 = no wait)
  TINYHOST_MEMORY_SOFT_LIMIT  memory above which the module runs a full collection (bytes or 96Mi;
                       "off"); default 75 % of the container's cgroup memory limit, none without one
  TINYHOST_LOG_LEVEL   trace, debug, info (default), warn, error, fatal or silent
  TINYHOST_MEMORY_GAUGE  what the soft limit is compared with: "anon" (RssAnon, default) or "rss" (VmRSS)
`;
}

/** A bad flag, flag value or environment variable; the message names it. code `"USAGE"`. */
export class RunUsageError extends TinyError<"USAGE"> {
  /** @param message - names the flag/variable and the value. */
  constructor(message: string) {
    super("USAGE", message);
    this.name = "RunUsageError";
  }
}

/** Parsed `run` flags (cluster mode). */
export interface RunClusterFlags {
  name: string;
  /** `--also`, in order (may be empty). */
  also: string[];
  version: string;
  namespace: string;
  kubeconfig?: string;
  metricsBindAddress?: string;
  healthProbeBindAddress: string;
  grpcServerBindAddress: string;
  components?: string;
  help: boolean;
}

/** Flags of `run` in a cluster, with the Go CLI's short names (runtime-spec §9; parsed by src/cli/flags.ts). */
export const RUN_CLUSTER_FLAGS = {
  name: { type: "string", short: "n" },
  also: { type: "string", multiple: true, valueName: "a module name" },
  version: { type: "string", short: "v" },
  namespace: { type: "string" },
  kubeconfig: { type: "string", short: "k" },
  "metrics-bind-address": { type: "string", short: "m" },
  "health-probe-bind-address": { type: "string", short: "t" },
  "grpc-server-bind-address": { type: "string", short: "g" },
  components: { type: "string", valueName: "a directory" },
  help: { type: "boolean", short: "h" },
} as const;

/**
 * Parses the arguments after `run` (a `--local` flag is the local mode's, not ours: it is rejected).
 * @throws RunUsageError naming an unknown flag, a missing value, or a version with a leading "v"
 *   (runtime-spec §9: Go refuses it).
 */
export function parseRunClusterFlags(args: readonly string[]): RunClusterFlags {
  let v;
  try {
    v = parseFlags(args, RUN_CLUSTER_FLAGS).values;
  } catch (e) {
    if (e instanceof FlagError) throw new RunUsageError(`${e.message} (see tinyhost run --help)`);
    throw e;
  }
  const flags: RunClusterFlags = {
    name: v.name ?? "main",
    also: v.also ?? [],
    version: v.version ?? tinyhostVersion,
    namespace: v.namespace ?? "tinysystems",
    ...(v.kubeconfig !== undefined ? { kubeconfig: v.kubeconfig } : {}),
    ...(v["metrics-bind-address"] !== undefined ? { metricsBindAddress: v["metrics-bind-address"] } : {}),
    healthProbeBindAddress: v["health-probe-bind-address"] ?? ":8081",
    grpcServerBindAddress: v["grpc-server-bind-address"] ?? ":0",
    ...(v.components !== undefined ? { components: v.components } : {}),
    help: v.help === true,
  };
  if (flags.name.trim() === "") throw new RunUsageError(`--name = ${JSON.stringify(flags.name)} must not be empty`);
  if (flags.version.trim() === "") throw new RunUsageError(`--version = ${JSON.stringify(flags.version)} must not be empty`);
  if (flags.version.startsWith("v")) {
    throw new RunUsageError(`--version = ${JSON.stringify(flags.version)} must not start with "v" (write ${JSON.stringify(flags.version.slice(1))})`);
  }
  if (flags.namespace.trim() === "") throw new RunUsageError(`--namespace must not be empty`);
  return flags;
}

function msFromEnv(env: Record<string, string | undefined>, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) throw new RunUsageError(`${name} = ${JSON.stringify(raw)} must be a positive integer number of milliseconds`);
  return n;
}

/** Most `TINYHOST_STOP_DELAY_MS` may be: the delay plus the drains' reserve fit the 8 s shutdown budget. */
export { MAX_STOP_DELAY_MS };

/**
 * `TINYHOST_STOP_DELAY_MS`: 0 (the default) to {@link MAX_STOP_DELAY_MS} ms, decimal digits only (src/operator/env-integer.ts).
 * @throws RunUsageError naming the variable and the value otherwise.
 */
export function stopDelayFromEnv(env: Record<string, string | undefined>): number {
  let n: number | undefined;
  try {
    n = envInteger(env, "TINYHOST_STOP_DELAY_MS", 0, "number of ms ");
  } catch (err) {
    throw new RunUsageError((err as Error).message);
  }
  if (n !== undefined && n > MAX_STOP_DELAY_MS)
    throw new RunUsageError(`TINYHOST_STOP_DELAY_MS = "${n}" is more than ${MAX_STOP_DELAY_MS} ms: the delay and the drains must fit the 8 s shutdown budget`);
  return n ?? 0;
}

/**
 * Builds the module options from flags and environment.
 * @throws RunUsageError when HOSTNAME is missing (runtime-spec §6: the Lease identity) or a knob is malformed.
 */
export function moduleOptionsFrom(flags: RunClusterFlags, env: Record<string, string | undefined>): ModuleOptions {
  const hostname = (env.HOSTNAME ?? "").trim();
  if (hostname === "")
    throw new RunUsageError(
      "HOSTNAME is not set: it names this pod on the module's Lease (the kubelet sets it in a cluster; export HOSTNAME=<name> elsewhere)",
    );
  // TINYHOST_ALSO: the env form of --also, for a chart that sets env but not the arguments.
  const fromEnv = (env.TINYHOST_ALSO ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  const also = [...flags.also, ...fromEnv];
  try {
    servedModules(flags.name, also, [...flags.also.map(() => "--also"), ...fromEnv.map(() => "TINYHOST_ALSO")]);
  } catch (err) {
    throw new RunUsageError((err as Error).message);
  }
  return {
    name: flags.name,
    ...(also.length > 0 ? { also } : {}),
    version: flags.version,
    namespace: flags.namespace,
    ...(flags.kubeconfig ? { kubeconfig: flags.kubeconfig } : {}),
    hostname,
    healthProbeBindAddress: flags.healthProbeBindAddress,
    ...(flags.metricsBindAddress ? { metricsBindAddress: flags.metricsBindAddress } : {}),
    grpcServerBindAddress: flags.grpcServerBindAddress,
    // TINYHOST_COMPONENTS_DIR: the image's way to add watched component files (a ConfigMap mount).
    ...(flags.components || env.TINYHOST_COMPONENTS_DIR ? { componentsDir: flags.components || env.TINYHOST_COMPONENTS_DIR } : {}),
    env,
    lease: {
      durationMs: msFromEnv(env, "TINYHOST_LEASE_DURATION_MS", DEFAULT_LEASE_TIMINGS.durationMs),
      renewDeadlineMs: msFromEnv(env, "TINYHOST_RENEW_DEADLINE_MS", DEFAULT_LEASE_TIMINGS.renewDeadlineMs),
      retryPeriodMs: msFromEnv(env, "TINYHOST_RETRY_PERIOD_MS", DEFAULT_LEASE_TIMINGS.retryPeriodMs),
    },
    drainTimeoutMs: msFromEnv(env, "TINYHOST_DRAIN_TIMEOUT_MS", 4_000),
    stopDelayMs: stopDelayFromEnv(env),
  };
}

/**
 * Runs the module until SIGTERM/SIGINT (exit 0) or a fatal error (exit 1). The first start-up
 * stage (the kubeconfig and the three requests /readyz waits on, src/operator/early.ts) begins
 * before the runtime is loaded: loading it (./run-module.ts and what it imports) overlaps with
 * those round trips.
 * @returns the exit code: 0 stopped, 1 start-up or fatal error, 2 usage error.
 */
export async function runCluster(args: readonly string[], env: Record<string, string | undefined> = process.env): Promise<number> {
  let options: ModuleOptions;
  try {
    const flags = parseRunClusterFlags(args);
    if (flags.help) {
      console.log(runClusterHelp());
      return 0;
    }
    options = moduleOptionsFrom(flags, env);
  } catch (err) {
    if (err instanceof RunUsageError) {
      console.error(`tinyhost run: ${err.message}`);
      return 2;
    }
    throw err;
  }
  const log = lazyChildLogger({ component: "module" });
  // Before the first request: the Lease may be ours within ~30–50 ms (./stop-signals.ts).
  const signals = new StopSignals();
  const early = beginStart(options, log);
  signals.onSignal((signal) => {
    log.info({ signal }, "signal received during start-up: releasing the Lease and exiting");
    void early.cancel().finally(() => process.exit(0));
  });
  await early.sent;
  const { runModule } = await import("./run-module.ts");
  return runModule(options, early, signals);
}

if (import.meta.main) process.exit(await runCluster(process.argv.slice(2)));
