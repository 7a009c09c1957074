/**
 * Test support for stateful bundled components: one TinyNode hosted by several "pods" (one
 * Scheduler each), the way a module Deployment runs it — with the verbs of the Go common-module
 * test harness (components.md §3): handle as leader or not, reconcile, pod restart with the same
 * metadata, per-port captured outputs, and the node's `status.metadata`.
 *
 * The "cluster" keeps the one live node object; every pod's debounced status patch is applied to it
 * (what the Kubernetes status sink does), and `reconcile()` hands a pod a copy of it (what the
 * informer does). Fakes are for unit tests only.
 */
import { afterEach } from "bun:test";
import type { ComponentDefinition, Emitted, Result, TinyNode, TinyNodeStatus } from "tinyhost";
import { empty } from "tinyhost";
import { Scheduler } from "../../../src/runtime/scheduler/scheduler.ts";

/** Logger that drops everything (component log lines are not under test here). */
const quiet = { debug() {}, info() {}, warn() {}, error() {}, child: () => quiet };

const MODULE = "harness";
const CAPTURE = "capture";

function b64(v: unknown): string {
  return Buffer.from(JSON.stringify(v), "utf8").toString("base64");
}

/**
 * `definition` with `prepare(self)` run on every new instance before any hook — how a test swaps a
 * component's clock before a reconcile can start its loop. Instances point back at the wrapper so
 * the scheduler keeps treating them as the installed component.
 */
function withPrepare(definition: ComponentDefinition, prepare: (self: unknown) => void): ComponentDefinition {
  const wrapper: ComponentDefinition = {
    ...definition,
    instance() {
      const inner = definition.instance();
      prepare(inner.self);
      return { ...inner, definition: wrapper };
    },
  };
  return wrapper;
}

/** The cluster side: the node object and the pods hosting it. */
export class FakeCluster {
  readonly node: TinyNode;
  readonly pods: Pod[] = [];
  readonly definition: ComponentDefinition;

  /**
   * @param definition the component under test
   * @param settings node-own `_settings` value (absent: none, the port default applies)
   * @param prepare runs on each new instance's state before its first hook (e.g. install a fake clock)
   */
  constructor(definition: ComponentDefinition, settings?: unknown, prepare?: (self: unknown) => void) {
    this.definition = prepare ? withPrepare(definition, prepare) : definition;
    this.node = {
      metadata: { name: `test.${MODULE}.${definition.info.name.replaceAll("_", "-")}-0`, namespace: "test", labels: {}, generation: 1 },
      spec: {
        module: MODULE,
        component: definition.info.name,
        edges: definition
          .ports()
          .filter((p) => p.source && !p.name.startsWith("_"))
          .map((p) => ({ id: `capture-${p.name}`, port: p.name, to: `test.${CAPTURE}.sink-0:${p.name}` })),
        ports: settings === undefined ? [] : [{ port: "_settings", configuration: b64(settings) }],
      },
      status: { metadata: {} },
    };
  }

  /** `status.metadata` of the live node. */
  get metadata(): Record<string, string> {
    return ((this.node.status ??= {}).metadata ??= {});
  }

  /** Replaces the node-own `_settings` configuration (the next reconcile delivers it). */
  setSettings(settings: unknown): void {
    this.node.spec.ports = [{ port: "_settings", configuration: b64(settings) }];
  }

  /** Starts a new pod (no runner yet: call `reconcile()`). */
  newPod(options: { leader: boolean }): Pod {
    const pod = new Pod(this, options.leader);
    this.pods.push(pod);
    return pod;
  }

  /** Stops every pod (no onDestroy: pod shutdown). */
  async shutdown(): Promise<void> {
    await Promise.all(this.pods.map((p) => p.shutdown()));
  }
}

/** One replica of the module hosting the node. */
export class Pod {
  readonly scheduler: Scheduler;
  /** Every emit this pod's runner sent on a business source port, in order. */
  readonly emitted: Emitted[] = [];
  readonly #responders = new Map<string, (data: unknown) => Result | Promise<Result>>();

  constructor(
    readonly cluster: FakeCluster,
    leader: boolean,
  ) {
    this.scheduler = new Scheduler({
      module: MODULE,
      debounceMs: 5,
      log: quiet,
      readyTimeoutMs: 100,
      statusSink: {
        patchStatus: async (_name, mutate) => mutate(cluster.node),
      },
      remote: {
        send: async (msg) => {
          const port = msg.to.slice(msg.to.lastIndexOf(":") + 1);
          this.emitted.push({ port, data: msg.data });
          const reply = this.#responders.get(port);
          return reply ? reply(msg.data) : empty;
        },
      },
    });
    this.scheduler.isLeader = leader;
    this.scheduler.install(cluster.definition);
  }

  get #name(): string {
    return this.cluster.node.metadata.name;
  }

  /** Flips this pod's leader flag (what the Lease elector does); call `reconcile()` to notify, as Go requeues all nodes on a gained lease. */
  set leader(value: boolean) {
    this.scheduler.isLeader = value;
  }

  /** Reconciles the node from the cluster's current copy (spec + status). */
  reconcile(): Promise<TinyNodeStatus> {
    return this.scheduler.update(structuredClone(this.cluster.node));
  }

  /** Sends `data` to `port` as a raw signal (dashboard/`send_signal` path). */
  send(port: string, data: unknown, signal?: AbortSignal): Promise<Result> {
    return this.scheduler.handle({ edgeId: "", from: "signal", to: `${this.#name}:${port}`, data, depth: 0 }, signal);
  }

  /** Makes emits on `port` resolve to `reply(data)`, as the next node would. */
  respond(port: string, reply: (data: unknown) => Result | Promise<Result>): void {
    this.#responders.set(port, reply);
  }

  /** Emits captured on `port`. */
  on(port: string): unknown[] {
    return this.emitted.filter((e) => e.port === port).map((e) => e.data);
  }

  /** The decoded configuration this pod would publish for `port` (e.g. `_control`). */
  portValue(port: string): unknown {
    const p = this.scheduler.readStatus(this.#name)?.ports?.find((x) => x.name === port);
    return p ? JSON.parse(Buffer.from(p.configuration, "base64").toString("utf8")) : undefined;
  }

  /** Pod shutdown: stops the runner without onDestroy; metadata stays on the node. */
  shutdown(): Promise<void> {
    return this.scheduler.stopAll();
  }

  /** Node deletion seen by this pod: onDestroy, then stop. */
  destroy(): Promise<void> {
    return this.scheduler.destroy(this.#name);
  }
}

/** Options of {@link clusterFactory}. */
export interface ClusterFactoryOptions {
  /** Source ports to capture that the default settings do not declare (`error`, `store_ack`). */
  capture?: string[];
  /** Runs on each new instance's state before its first hook (e.g. install a fake clock). */
  prepare?: (self: unknown) => void;
}

/**
 * A maker of clusters of `definition` for one test file: each is shut down after every test (an
 * `afterEach` registered here). Call it at the top level of a test file.
 */
export function clusterFactory(definition: ComponentDefinition, options: ClusterFactoryOptions = {}): (settings?: unknown) => FakeCluster {
  const clusters: FakeCluster[] = [];
  afterEach(async () => {
    await Promise.all(clusters.splice(0).map((c) => c.shutdown()));
  });
  return (settings) => {
    const c = new FakeCluster(definition, settings, options.prepare);
    for (const port of options.capture ?? []) c.node.spec.edges!.push({ id: `capture-${port}`, port, to: `test.${CAPTURE}.sink-0:${port}` });
    clusters.push(c);
    return c;
  };
}

/** A new pod of `c` that reconciled once (runner started, settings applied). */
export async function runningPod(c: FakeCluster, leader = true): Promise<Pod> {
  const p = c.newPod({ leader });
  await p.reconcile();
  return p;
}

/**
 * Polls `check` until it returns true; rejects after `timeoutMs` naming `what`. Waits on events
 * the test cannot await directly (background loops, debounced patches) without assuming speed.
 */
export async function waitFor(what: string, check: () => boolean, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(2);
  }
}
