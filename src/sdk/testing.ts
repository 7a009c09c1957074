/**
 * `testComponent`: run one component in a real scheduler for unit tests — same input validation,
 * hook order and settings dedup as production — with its source ports captured, `[[secret:…]]`
 * placeholders in its settings resolved from the secrets the test gives, and what it `meter`s
 * recorded per hop.
 *
 * @example
 * const h = await testComponent(double);
 * const r = await h.send("in", { n: 2 });
 * expect(h.emitted).toEqual([{ port: "out", data: { n: 4 } }]);
 */
import { Scheduler } from "../runtime/scheduler/scheduler.ts";
import type { HopSpan, Tracer } from "../runtime/runner/index.ts";
import { mapSecretSource } from "../runtime/secrets/index.ts";
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

/** What one hop of the component metered (`meter(ctx, unit, amount)`, summed per unit), as the runtime writes it on the hop's span. */
export interface HopUsage {
  /** The port the hop arrived on (`_settings` for the settings hook). */
  port: string;
  /** Unit → the hop's total, e.g. `{ llm_input_tokens: 1200 }`; written on the span as `tiny.usage.<unit>`. */
  units: Record<string, number>;
}

/** Options of {@link testComponent}. */
export interface TestComponentOptions {
  /**
   * Secrets that `[[secret:<name>/<key>]]` placeholders in settings resolve from, as
   * `{<name>: {<key>: <value>}}` — the shape of local mode's `.tinyhost/secrets.yaml`, with its checks:
   * a placeholder naming a Secret or key not given fails the settings with an error naming it.
   * Resolved values are redacted in logs and status as in production. Default: none.
   */
  secrets?: Record<string, Record<string, string>>;
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
  /** One entry per finished hop that metered something, in the order the hops ended (a hop that metered nothing adds none). */
  readonly usage: HopUsage[];
  /** The sum of every hop's {@link HopUsage.units}, per unit. */
  usageTotals(): Record<string, number>;
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
      edges: ports
        .filter((p) => p.source && !p.name.startsWith("_"))
        .map((p) => ({ id: `capture-${p.name}`, port: p.name, to: `test.${CAPTURE_MODULE}.sink-0:${p.name}` })),
      ports: settings === undefined ? [] : [{ from: "", port: "_settings", configuration: b64(settings) }],
    },
    status: { metadata: {} },
  };
}

/** A tracer that records like `base` and also hands each input hop's metered totals to `record`. */
function meteringTracer(base: Tracer, record: (u: HopUsage) => void): Tracer {
  return {
    active: base.active,
    output: (site, port, data) => base.output(site, port, data),
    input(site, port, msg): HopSpan {
      const span = base.input(site, port, msg);
      return {
        get recording() {
          return span.recording;
        },
        event: (name, attributes) => span.event(name, attributes),
        data: (value) => span.data(value),
        run: (fn) => span.run(fn),
        usage(totals) {
          record({ port, units: Object.fromEntries(totals) });
          span.usage(totals);
        },
        end: (error) => span.end(error),
      };
    },
  };
}

/**
 * Starts `def` as one node in a fresh scheduler with every source port captured.
 * @throws whatever installing the component or its first reconcile throws.
 */
export async function testComponent(def: ComponentDefinition, options: TestComponentOptions = {}): Promise<ComponentHarness> {
  const emitted: Emitted[] = [];
  const usage: HopUsage[] = [];
  const responders = new Map<string, (data: unknown) => Result | Promise<Result>>();
  const scheduler = new Scheduler({
    module: HARNESS_MODULE,
    debounceMs: 10,
    readyTimeoutMs: 100,
    warnUnknownEdgePorts: false, // capture edges are generated for the ports before settings apply
    middleware: [{ tracer: (next) => meteringTracer(next, (u) => usage.push(u)) }],
    secrets: mapSecretSource(options.secrets ?? {}, "testComponent's options.secrets"),
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
    usage,
    usageTotals() {
      // A Map, not `out[unit] ??`: a unit named `toString` or `__proto__` must not meet Object.prototype.
      const sums = new Map<string, number>();
      for (const hop of usage) for (const [unit, amount] of Object.entries(hop.units)) sums.set(unit, (sums.get(unit) ?? 0) + amount);
      return Object.fromEntries(sums);
    },
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
