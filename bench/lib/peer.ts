/**
 * Side-by-side launch of the two runtimes for the Go comparison benchmarks (bench/vs-go.ts, and
 * the memory/scale benchmarks that compare with Go): the Go peer module (test/go/peer, the real Go
 * SDK's own `run` command; binary from the Go tools cache, test/support/go-tools.ts) and the
 * compiled `dist/tinyhost` with the same components (bench/fixtures/peer-components: `echo`, `relay`), both
 * started with the same flags and environment the chart gives a module (runtime-spec §9), plus what
 * the benchmarks read from them: CPU time from `/proc/<pid>/stat`, the Lease holder, and TinyNodes
 * made of the components both runtimes have.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { TinyNode } from "../../src/core/api/index.ts";
import { leases } from "../../src/k8s/client/resources.ts";
import type { KubeClient } from "../../src/k8s/client/index.ts";
import { mixedFlow, type MixedNodeSpec } from "../../test/support/go-peer.ts";
import { goTool } from "../../test/support/go-tools.ts";
import { freePort, startProcess, type ManagedProcess } from "../../test/support/process.ts";
import { ROOT } from "./binary.ts";
import { moduleRunArgs } from "./cluster.ts";

/**
 * tinyhost's side of the peer's components for the compiled binary: `echo` and `relay` as in
 * test/go/peer/components.go, importing only "tinyhost" (the test twins' record writer needs
 * packages a file outside the binary's build cannot resolve).
 */
export const BENCH_PEER_COMPONENTS = join(ROOT, "bench/fixtures/peer-components");

/** Which runtime a module process runs. */
export type Runtime = "go" | "tinyhost";

/** Go's log level: `PEER_LOG_LEVEL` (the peer's main.go); default info, as the real modules ship. */
const GO_LOG_LEVEL = process.env.VS_GO_PEER_LOG_LEVEL ?? "info";

/** Options of {@link startPeerModule}. */
export interface PeerModuleOptions {
  runtime: Runtime;
  /** Path of dist/tinyhost (tinyhost only; see bench/lib/binary.ts `ensureBinary`). */
  tinyhostBinary: string;
  /** Pod name (HOSTNAME): the Lease identity. */
  hostname: string;
  /** `--name`: the module segment of its nodes' names. */
  module: string;
  namespace: string;
  kubeconfig: string;
  /** Directory for the log file `<hostname>.log`. */
  logDir: string;
  /** Transport environment (TINY_NATS_URL, TINY_NATS_TRANSPORT) and more. */
  env?: Record<string, string>;
  /**
   * tinyhost only: load {@link BENCH_PEER_COMPONENTS} with `--components` (default true). False runs
   * the binary's compiled-in set only, as a release image does — what a start-up comparison with the
   * Go peer (its components compiled in) should measure; nodes of `echo`/`relay` then fail.
   */
  peerComponents?: boolean;
}

/** A started module process of either runtime. */
export interface PeerModule extends ManagedProcess {
  readonly runtime: Runtime;
  /** `http://127.0.0.1:<port>` of /healthz, /readyz (and tinyhost's /metrics). */
  readonly healthUrl: string;
  readonly logFile: string;
  /** `performance.now()` right before the spawn. */
  readonly spawnedAt: number;
  /** Its HOSTNAME (Lease identity). */
  readonly hostname: string;
}

/**
 * Starts one module process. Both get `--health-probe-bind-address` on a free loopback port and
 * `--grpc-server-bind-address 127.0.0.1:0`; Go's extra metrics listener is off
 * (`--metrics-bind-address 0`, as tinyhost's default); both log at info, their shipped default (the
 * Go SDK then logs every hop, tinyhost none; `VS_GO_PEER_LOG_LEVEL=warn` quiets Go); no tracing.
 * @throws Error when the Go peer binary is not built (test/support/go-tools.ts builds it when
 *   missing: many CPU-minutes) or the process cannot be spawned.
 */
export async function startPeerModule(o: PeerModuleOptions): Promise<PeerModule> {
  const port = freePort();
  const logFile = join(o.logDir, `${o.hostname}.log`);
  const common = moduleRunArgs({
    module: o.module,
    namespace: o.namespace,
    kubeconfig: o.kubeconfig,
    healthAddress: `127.0.0.1:${port}`,
    grpcAddress: "127.0.0.1:0",
  });
  const cmd =
    o.runtime === "go"
      ? [await goTool("peer"), ...common, "--metrics-bind-address", "0"]
      : [o.tinyhostBinary, ...common, ...(o.peerComponents === false ? [] : ["--components", BENCH_PEER_COMPONENTS])];
  const spawnedAt = performance.now();
  const proc = startProcess({
    name: `${o.runtime} module ${o.hostname}`,
    cmd,
    cwd: ROOT,
    logFile,
    env: {
      HOSTNAME: o.hostname,
      TINY_NATS_URL: "",
      TINY_NATS_TRANSPORT: "",
      OTLP_DSN: "",
      PEER_RECORD_FILE: "",
      TINYHOST_LOG_LEVEL: "info",
      PEER_LOG_LEVEL: GO_LOG_LEVEL,
      ...o.env,
    },
  });
  return { ...proc, runtime: o.runtime, healthUrl: `http://127.0.0.1:${port}`, logFile, spawnedAt, hostname: o.hostname };
}

let clockTicks: number | undefined;

/** `getconf CLK_TCK` (the unit of `/proc/<pid>/stat` times), usually 100. */
function ticksPerSecond(): number {
  if (clockTicks === undefined) {
    const r = Bun.spawnSync(["getconf", "CLK_TCK"], { stdout: "pipe" });
    const n = Number(r.stdout.toString().trim());
    clockTicks = Number.isFinite(n) && n > 0 ? n : 100;
  }
  return clockTicks;
}

/**
 * CPU time `pid` used so far (user + system, every thread), in ms, from `/proc/<pid>/stat` fields
 * 14 `utime` and 15 `stime` (proc(5)); resolution 1000/CLK_TCK ms (10 ms at 100 Hz). NaN when the
 * process is gone.
 */
export function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Field 2 (comm) is in parentheses and may hold spaces: count fields after its closing paren.
    const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // rest[0] is field 3 (state), so field n is rest[n - 3].
    return ((Number(rest[11]) + Number(rest[12])) * 1000) / ticksPerSecond();
  } catch {
    return Number.NaN;
  }
}

/**
 * Polls the Lease `name` until its `holderIdentity` is `identity` (the pod was elected).
 * @returns ms from `since` (a `performance.now()` reading) to the first poll that saw it.
 * @throws Error after `timeoutMs`, naming the holder seen last.
 */
export async function untilLeaseHeld(
  kube: KubeClient,
  namespace: string,
  name: string,
  identity: string,
  since: number,
  timeoutMs: number,
  intervalMs = 5,
): Promise<number> {
  let holder = "(no Lease)";
  for (;;) {
    const lease = await kube.get(leases, name, namespace).catch(() => undefined);
    holder = lease?.spec?.holderIdentity ?? "(no Lease)";
    if (holder === identity) return performance.now() - since;
    if (performance.now() - since > timeoutMs) throw new Error(`Lease ${namespace}/${name}: held by ${holder}, not ${identity}, after ${timeoutMs} ms`);
    await Bun.sleep(intervalMs);
  }
}

/** Nodes of {@link peerChain}: `relay → relay → echo`. */
export const CHAIN_LENGTH = 3;

/**
 * A chain `relay → relay → echo` of `module` (components both runtimes have, test/go/peer and its
 * twins), every edge `{data: "{{$.data}}"}`; flow prefix `prefix` (8 hex, the platform's slot).
 * @returns the TinyNodes (head first).
 */
export function peerChain(namespace: string, module: string, prefix: string): TinyNode[] {
  const n = (component: string, id: string): MixedNodeSpec => ({ module, component, id });
  const a = n("relay", "a");
  const b = n("relay", "b");
  const c = n("echo", "c");
  return mixedFlow(
    namespace,
    prefix,
    [a, b, c],
    [
      { from: a, to: b },
      { from: b, to: c },
    ],
  );
}

/** `count` TinyNodes of `module` (rounded up to whole {@link peerChain}s; flow prefixes `f0000000`, …). */
export function peerNodes(namespace: string, module: string, count: number): TinyNode[] {
  const out: TinyNode[] = [];
  for (let i = 0; out.length < count; i++) out.push(...peerChain(namespace, module, `f${i.toString(16).padStart(7, "0")}`));
  return out.slice(0, count);
}
