/**
 * Small components and TinyNode builders for unit tests of the runner and scheduler. Fakes live here
 * only (project rule: fakes only in unit tests).
 */
import { defineComponent, fail, ok, permanent, retryable, source, target, Type, type TinyNode } from "tinyhost";

/** Module name used by test nodes: node names are `h.<MODULE>.<component>-<n>`. */
export const MODULE = "testmod";

/** A node name of this module. */
export function nodeName(id: string): string {
  return `h.${MODULE}.${id}`;
}

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v), "utf8").toString("base64");

/** Options of {@link makeNode}. */
export interface NodeOptions {
  /** Edges from this node: `[sourcePort, "targetNodeId:port", retryPolicy?]`. */
  edges?: Array<{ port: string; to: string; id?: string; retryPolicy?: NonNullable<TinyNode["spec"]["edges"]>[number]["retryPolicy"] }>;
  /** Port configs on this node: `{from: "srcNodeId:port" | "", port, config}`. */
  ports?: Array<{ from: string; port: string; config: unknown }>;
  labels?: Record<string, string>;
  metadata?: Record<string, string>;
}

/** A TinyNode for component `component` with id `id`; ids in `to`/`from` are expanded to full node names. */
export function makeNode(id: string, component: string, o: NodeOptions = {}): TinyNode {
  const full = (addr: string) => (addr === "" ? "" : `${nodeName(addr.split(":")[0]!)}:${addr.split(":")[1]}`);
  return {
    metadata: { name: nodeName(id), namespace: "ns", labels: o.labels ?? {}, generation: 1 },
    spec: {
      module: MODULE,
      component,
      edges: (o.edges ?? []).map((e, i) => ({
        id: e.id ?? `${id}-e${i}`,
        port: e.port,
        to: full(e.to),
        ...(e.retryPolicy ? { retryPolicy: e.retryPolicy } : {}),
      })),
      ports: (o.ports ?? []).map((p) => ({ from: full(p.from), port: p.port, configuration: b64(p.config) })),
    },
    status: { metadata: { ...(o.metadata ?? {}) } },
  };
}

const Ctx = Type.Object({ context: Type.Any() });

/** `relay`: `in {context}` → emits `{context}` on `out`, returns the downstream result. */
export const relay = defineComponent({
  info: { name: "relay", description: "Relay", info: "passes context through" },
  ports: () => [target("in", Ctx, { default: { context: null } }), source("out", Ctx)],
  handle: (_ctx, output, _port, data) => output("out", { context: data.context }),
});

/** `sink`: `in {value: number}` → returns `ok({got: value})`. */
export const sink = defineComponent({
  info: { name: "sink", description: "Sink", info: "returns what it got" },
  ports: () => [target("in", Type.Object({ value: Type.Number() }), { default: { value: 0 } })],
  handle: (_ctx, _output, _port, data) => ok({ got: data.value }),
});

/** Kinds of error {@link flaky} throws. */
export type FlakyKind = "plain" | "retryable" | "permanent";

/** `flaky`: fails `failTimes` times with `kind`, then returns `ok("recovered")`; counts calls in `self.calls`. */
export const flaky = defineComponent({
  info: { name: "flaky", description: "Flaky", info: "fails, then recovers" },
  state: () => ({ calls: 0 }),
  ports: () => [target("in", Type.Object({ kind: Type.String(), failTimes: Type.Number() }), { default: { kind: "plain", failTimes: 1 } })],
  handle(ctx, _output, _port, data) {
    ctx.self.calls++;
    if (ctx.self.calls <= data.failTimes) {
      const e = new Error(`boom ${ctx.self.calls}`);
      if (data.kind === "retryable") throw retryable(e);
      if (data.kind === "permanent") return fail(permanent(e));
      throw e;
    }
    return ok("recovered");
  },
});

/** Global journal of hook calls by {@link lifecycle} nodes, `"<hook>"` strings in call order. */
export const journal: string[] = [];

/** `lifecycle`: records every hook and handle call into {@link journal}. */
export const lifecycle = defineComponent({
  info: { name: "lifecycle", description: "Lifecycle", info: "records hooks" },
  ports: () => [
    target("_settings", Type.Object({ level: Type.Number() }), { default: { level: 1 } }),
    target("_control", Type.Object({ press: Type.Boolean() }), { default: { press: false } }),
    target("_reconcile", Type.Any()),
    target("in", Type.Any()),
  ],
  onIdentity: () => void journal.push("onIdentity"),
  onClient: () => void journal.push("onClient"),
  onNats: () => void journal.push("onNats"),
  onState: () => void journal.push("onState"),
  onEmitter: () => void journal.push("onEmitter"),
  onReconcile: () => void journal.push("onReconcile"),
  onSettings: (_ctx, s) => void journal.push(`onSettings:${s.level}`),
  onControl: () => void journal.push("onControl"),
  onDestroy: () => void journal.push("onDestroy"),
  handle: (_ctx, _o, port) => void journal.push(`handle:${port}`),
});

/** `waiter`: blocks until `ctx.signal` aborts, then records the reason and returns it as a failure. */
export const waiter = defineComponent({
  info: { name: "waiter", description: "Waiter", info: "waits for cancellation" },
  state: () => ({ started: Promise.withResolvers<void>(), aborted: false }),
  ports: () => [target("in", Type.Any())],
  handle(ctx) {
    ctx.self.started.resolve();
    return new Promise((resolve) => {
      ctx.signal.addEventListener("abort", () => {
        ctx.self.aborted = true;
        resolve(fail(new Error("aborted")));
      });
    });
  },
});

/** `delayed`: `in {ms, tag}` → waits `ms`, returns `ok(tag)`. */
export const delayed = defineComponent({
  info: { name: "delayed", description: "Delayed", info: "answers after a delay" },
  ports: () => [target("in", Type.Object({ ms: Type.Number(), tag: Type.String() }), { default: { ms: 0, tag: "" } })],
  handle: async (_ctx, _o, _p, data) => {
    await Bun.sleep(data.ms);
    return ok(data.tag);
  },
});
