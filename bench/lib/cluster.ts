/**
 * Cluster helpers of the scale and cold-start benchmarks: a realistic mix of TinyNodes in the
 * platform's format (built by the local flow builder: names `<md5[:8]>.<module>.<component>-<5 hex>`,
 * edges on source nodes, base64 configurations on targets), bounded-parallel creation, a module
 * process (`tinyhost run`), and a watch that counts the nodes whose status the leader wrote.
 */
import { join } from "node:path";
import { buildFlow, type FlowDescription } from "../../src/cli/scaffold/flow-builder.ts";
import type { KubeClient } from "../../src/k8s/client/index.ts";
import type { TinyNode } from "../../src/core/api/index.ts";
import { tinyModules, tinyNodes } from "../../src/k8s/controllers/types.ts";
import { resourceSource, Watcher } from "../../src/k8s/runtime/index.ts";
import { freePort, startProcess, type ManagedProcess } from "../../test/support/process.ts";
import { ROOT } from "./binary.ts";

/** Nodes per generated flow. */
export const NODES_PER_FLOW = 8;

/**
 * One flow of 8 nodes: ticker (not started) → router (2 routes + default) → transform → counter →
 * debug; router.default → delay → transform → debug. Every edge carries an `{{expression}}` mapping.
 */
export function benchFlow(module: string, namespace: string, i: number): FlowDescription {
  return {
    project: "scale-bench",
    flow: `flow-${i}`,
    namespace,
    module,
    nodes: {
      tick: { component: "ticker", settings: { context: { flow: i }, delay: 60_000 } },
      route: { component: "router", settings: { routes: ["A", "B"], enableDefaultPort: true } },
      shape: { component: "transform" },
      count: { component: "counter", settings: { step: 1, initial: 0 } },
      show: { component: "debug" },
      wait: { component: "delay" },
      reshape: { component: "transform" },
      show2: { component: "debug" },
    },
    edges: [
      {
        from: "tick:out",
        to: "route:input",
        configuration: {
          context: "{{$}}",
          conditions: [
            { route: "A", condition: "{{$.flow % 2 == 0}}" },
            { route: "B", condition: "{{$.flow % 2 == 1}}" },
          ],
        },
      },
      { from: "route:out_a", to: "shape:in", configuration: { context: { flow: "{{$.context.flow}}", kind: "even" } } },
      { from: "route:out_b", to: "count:in", configuration: { context: "{{$.context}}" } },
      { from: "shape:out", to: "count:in", configuration: { context: "{{$.context}}" } },
      { from: "count:out", to: "show:in", configuration: { count: "{{$.count}}", line: "flow {{$.context.flow}} #{{$.count}}" } },
      { from: "route:default", to: "wait:in", configuration: { context: "{{$.context}}", delay: 10 } },
      { from: "wait:out", to: "reshape:in", configuration: { context: { late: true, flow: "{{$.context.flow}}" } } },
      { from: "reshape:out", to: "show2:in", configuration: { context: "{{$.context}}" } },
    ],
  };
}

/** `count` TinyNodes (a multiple of {@link NODES_PER_FLOW} is exact; else rounded up) for `module` in `namespace`. */
export function benchNodes(module: string, namespace: string, count: number): TinyNode[] {
  const out: TinyNode[] = [];
  for (let i = 0; out.length < count; i++) out.push(...(buildFlow(benchFlow(module, namespace, i)).nodes.values() as Iterable<TinyNode>));
  return out.slice(0, count);
}

/**
 * Runs `fn` over `items` with at most `parallel` calls in flight.
 * @returns the elapsed ms.
 */
export async function forEachBounded<T>(items: readonly T[], parallel: number, fn: (item: T) => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(parallel, items.length) }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
  return performance.now() - t0;
}

/** How the module is started. */
export interface ModuleLaunch {
  /** argv up to (excluding) `run`. */
  argv: string[];
  /** `compiled dist/tinyhost` or `dev: bun src/cli/main.ts`. */
  label: string;
}

/**
 * Dev mode (`bun src/cli/main.ts`) or a compiled binary. In dev mode, `BENCH_CPU_PROF=<dir>` runs
 * the module under Bun's sampling profiler (`--cpu-prof`): a `.cpuprofile` per module process is
 * written to `<dir>` when it exits (how the issue 19 scale profile was taken).
 */
export function moduleLaunch(binary: string | undefined): ModuleLaunch {
  return binary
    ? { argv: [binary], label: "compiled dist/tinyhost" }
    : {
        argv: [
          process.execPath,
          ...(process.env.BENCH_CPU_PROF ? ["--cpu-prof", "--cpu-prof-dir", process.env.BENCH_CPU_PROF] : []),
          join(ROOT, "src/cli/main.ts"),
        ],
        label: "dev: bun src/cli/main.ts",
      };
}

/** Fields of {@link moduleRunArgs}. */
export interface ModuleRunArgs {
  /** `--name`: the module segment of its nodes' names. */
  module: string;
  /** `--namespace`. */
  namespace: string;
  /** `--kubeconfig`; absent in a pod (in-cluster config from the ServiceAccount). */
  kubeconfig?: string;
  /** `--health-probe-bind-address` (Go syntax, e.g. `127.0.0.1:8081` or `:8081`). */
  healthAddress: string;
  /** `--grpc-server-bind-address` (Go syntax). */
  grpcAddress: string;
}

/**
 * The `run` argv (from `run` on) every benchmark gives a module of either runtime — tinyhost and
 * the Go peer take the same flags (the Go SDK's `run` command; runtime-spec §9) — as a process
 * (bench/lib/peer.ts, {@link startBenchModule}) or as a pod's `args` (bench/lib/pod-bench.ts).
 * Version `1.0.0`.
 */
export function moduleRunArgs(o: ModuleRunArgs): string[] {
  return [
    "run",
    "--name",
    o.module,
    "--version",
    "1.0.0",
    "--namespace",
    o.namespace,
    ...(o.kubeconfig !== undefined ? ["--kubeconfig", o.kubeconfig] : []),
    "--health-probe-bind-address",
    o.healthAddress,
    "--grpc-server-bind-address",
    o.grpcAddress,
  ];
}

/** A started module process. */
export interface BenchModule extends ManagedProcess {
  healthUrl: string;
  logFile: string;
  /** `performance.now()` right before the spawn. */
  spawnedAt: number;
}

/** Starts `tinyhost run` (cluster mode, gRPC wire) with HOSTNAME `hostname`. */
export function startBenchModule(o: {
  launch: ModuleLaunch;
  hostname: string;
  module: string;
  namespace: string;
  kubeconfig: string;
  logDir: string;
  env?: Record<string, string>;
}): BenchModule {
  const port = freePort();
  const logFile = join(o.logDir, `${o.hostname}.log`);
  const spawnedAt = performance.now();
  const proc = startProcess({
    name: `module ${o.hostname}`,
    cmd: [
      ...o.launch.argv,
      ...moduleRunArgs({ module: o.module, namespace: o.namespace, kubeconfig: o.kubeconfig, healthAddress: `127.0.0.1:${port}`, grpcAddress: "127.0.0.1:0" }),
    ],
    cwd: ROOT,
    logFile,
    env: { HOSTNAME: o.hostname, TINY_NATS_URL: "", TINYHOST_LOG_LEVEL: "info", ...o.env },
  });
  return { ...proc, healthUrl: `http://127.0.0.1:${port}`, logFile, spawnedAt };
}

/** True when the leader of `module` wrote this node's status for its current generation without error. */
export function statusReady(n: TinyNode, module: string): boolean {
  const s = n.status;
  return !!s?.module?.name && s.module.name === module && (s.observedGeneration ?? -1) === (n.metadata.generation ?? 0) && s.error !== true;
}

/**
 * Watches the namespace's TinyNodes and resolves when `expected` of them are {@link statusReady}.
 * @returns ms from `since` to that moment.
 * @throws Error after `timeoutMs`, naming how many were ready.
 */
export async function waitAllReady(kube: KubeClient, namespace: string, module: string, expected: number, since: number, timeoutMs: number): Promise<number> {
  const stop = new AbortController();
  const ready = new Set<string>();
  const timer = setTimeout(() => stop.abort(), Math.max(0, since + timeoutMs - performance.now()));
  const w = new Watcher<TinyNode>(resourceSource(kube, tinyNodes, { namespace }), { pageSize: 500 });
  try {
    for await (const ev of w.events(stop.signal)) {
      if (ev.type === "restarted") {
        ready.clear();
        for (const n of ev.objects) if (statusReady(n, module)) ready.add(n.metadata.name!);
      } else if (ev.type === "applied") {
        if (statusReady(ev.object, module)) ready.add(ev.object.metadata.name!);
        else ready.delete(ev.object.metadata.name!);
      } else ready.delete(ev.object.metadata.name!);
      if (ready.size >= expected) return performance.now() - since;
    }
    throw new Error(`only ${ready.size} of ${expected} nodes ready after ${timeoutMs} ms`);
  } finally {
    clearTimeout(timer);
    stop.abort();
  }
}

/**
 * Waits until a fresh apiserver serves TinyNode lists and watches and accepts TinyModule writes:
 * right after start-up its CRD storage answers 429 "storage is (re)initializing" for a while,
 * which would be charged to the first module started.
 */
export async function warmUpApiserver(kube: KubeClient, namespace: string, timeoutMs = 60_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    try {
      await kube.list(tinyNodes, { namespace, limit: 1 });
      const stop = new AbortController();
      const timer = setTimeout(() => stop.abort(), 300);
      try {
        for await (const _ of kube.watch(tinyNodes, { namespace, resourceVersion: "0", timeoutSeconds: 1, signal: stop.signal })) break;
      } finally {
        clearTimeout(timer);
      }
      await kube.list(tinyModules, { namespace, limit: 1 });
      // The first write into a namespace created moments ago waits ~2 s in the apiserver's
      // admission; pay it here, not in the module's start-up.
      await kube.create(tinyModules, { metadata: { name: `warm-up-${Date.now()}`, namespace }, spec: { image: "warm-up:0" } } as never, { namespace });
      return;
    } catch (err) {
      if (performance.now() > deadline) throw err;
      await Bun.sleep(200);
    }
  }
}
