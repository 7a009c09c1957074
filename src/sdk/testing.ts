/**
 * `testComponent`: run one component in a real scheduler for unit tests — same input validation,
 * hook order and settings dedup as production — with its source ports captured.
 *
 * @example
 * const h = await testComponent(double);
 * const r = await h.send("in", { n: 2 });
 * expect(h.emitted).toEqual([{ port: "out", data: { n: 4 } }]);
 */
import { Scheduler } from "../runtime/scheduler/scheduler.ts";
import type { ComponentDefinition } from "../core/component.ts";
import type { Emitter } from "../core/context.ts";
import type { TinyNode, TinyNodeStatus } from "../core/node.ts";
import type { AnyPort } from "../core/ports.ts";
import { empty, type Result } from "../core/result.ts";

const HARNESS_MODULE = "harness";
const CAPTURE_MODULE = "capture";

/** One emit captured on a source port. */
export interface Emitted {
  port: string;
  data: unknown;
}

/** Options of {@link testComponent}. */
export interface TestComponentOptions {
  /** Node-own `_settings` value delivered on start (as a node's `spec.ports` entry would). */
  settings?: unknown;
  /** Labels of the test node (flow/project names…). */
  labels?: Record<string, string>;
  /** Leader flag seen by the component; default true. */
  isLeader?: boolean;
}

/** A running component under test. */
export interface ComponentHarness {
  /** Every emit on a source port, in order. */
  readonly emitted: Emitted[];
  /** The per-node instance state (`ctx.self`). */
  readonly self: unknown;
  /** Delivers `data` to `port` as a raw signal payload; resolves to the handler's result. */
  send(port: string, data: unknown, signal?: AbortSignal): Promise<Result>;
  /** Makes emits on `port` resolve to `reply(data)` (default: `empty`), like a downstream node would. */
  respond(port: string, reply: (data: unknown) => Result | Promise<Result>): void;
  /** Re-reconciles with new settings (deduplicated like production); resolves to the node status. */
  settings(value: unknown): Promise<TinyNodeStatus>;
  /** The node status the runtime would publish. */
  status(): TinyNodeStatus;
  /** The long-lived emitter (if the component took one via onEmitter, it is the same function). */
  readonly emit: Emitter;
  /** Deletes the node (runs onDestroy) and stops it. */
  stop(): Promise<void>;
}

function node(def: ComponentDefinition, ports: readonly AnyPort[], options: TestComponentOptions, settings: unknown): TinyNode {
  const name = `test.${HARNESS_MODULE}.${def.info.name}-0`;
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v), "utf8").toString("base64");
  return {
    metadata: { name, namespace: "test", labels: options.labels ?? {}, generation: 1 },
    spec: {
      module: HARNESS_MODULE,
      component: def.info.name,
      edges: ports.filter((p) => p.source && !p.name.startsWith("_")).map((p) => ({ id: `capture-${p.name}`, port: p.name, to: `test.${CAPTURE_MODULE}.sink-0:${p.name}` })),
      ports: settings === undefined ? [] : [{ from: "", port: "_settings", configuration: b64(settings) }],
    },
    status: { metadata: {} },
  };
}

/** Starts `def` as one node in a fresh scheduler with every source port captured. */
export async function testComponent(def: ComponentDefinition, options: TestComponentOptions = {}): Promise<ComponentHarness> {
  const emitted: Emitted[] = [];
  const responders = new Map<string, (data: unknown) => Result | Promise<Result>>();
  const scheduler = new Scheduler({
    module: HARNESS_MODULE,
    debounceMs: 10,
    readyTimeoutMs: 100,
    warnUnknownEdgePorts: false, // capture edges are generated for the ports before settings apply
    remote: {
      async send(msg) {
        const port = msg.to.slice(msg.to.lastIndexOf(":") + 1);
        emitted.push({ port, data: msg.data });
        const reply = responders.get(port);
        return reply ? reply(msg.data) : empty;
      },
    },
  });
  scheduler.isLeader = options.isLeader ?? true;
  scheduler.install(def);
  let current = node(def, def.ports(), options, options.settings);
  await scheduler.update(current);
  const runner = () => scheduler.runner(current.metadata.name)!;
  // Ports may depend on settings: re-wire capture edges to the ports the instance now declares.
  current = node(def, runner().ports(), options, options.settings);
  await scheduler.update(current);
  return {
    emitted,
    get self() {
      return runner().instance.self;
    },
    send: (port, data, signal) => scheduler.handle({ edgeId: "", from: "signal", to: `${current.metadata.name}:${port}`, data, depth: 0 }, signal),
    respond: (port, reply) => void responders.set(port, reply),
    async settings(value) {
      current = node(def, runner().ports(), options, value);
      await scheduler.update(current);
      current = node(def, runner().ports(), options, value);
      return scheduler.update(current);
    },
    status: () => runner().readStatus(),
    emit: (port, data, signal) => runner().emitter(port, data, signal),
    stop: () => scheduler.destroy(current.metadata.name),
  };
}
