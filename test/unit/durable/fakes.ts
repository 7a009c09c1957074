/**
 * Components and helpers for the durable-run and RPC unit tests (fakes live in unit tests only).
 */
import { beginRun, beginRunWithReply, defineComponent, fail, ok, readRun, retryable, runId, source, target, Type, type State } from "tinyhost";
import { Scheduler } from "../../../src/runtime/scheduler/index.ts";
import { EXECUTION_MODE_DURABLE, EXECUTION_MODE_LABEL } from "../../../src/core/api/constants.ts";
import { MODULE } from "../../support/fake-components.ts";

/** Handler calls by node name, and the run id each saw. */
export const calls: { node: string; runId: string | undefined }[] = [];

const Ctx = Type.Object({ context: Type.Any() });

/** `step`: records the call, emits `{context}` on `out`, returns the downstream result. */
export const step = defineComponent({
  info: { name: "step", description: "Step", info: "records, passes context on" },
  ports: () => [target("in", Ctx, { default: { context: null } }), source("out", Ctx)],
  handle: (ctx, output, _port, data) => {
    calls.push({ node: ctx.node.nodeName, runId: runId(ctx) });
    return output("out", { context: data.context });
  },
});

/** `flaky_step`: fails retryably on its first call per instance, then emits like `step`. */
export const flakyStep = defineComponent({
  info: { name: "flaky_step", description: "Flaky step", info: "fails once" },
  state: () => ({ calls: 0 }),
  ports: () => [target("in", Ctx, { default: { context: null } }), source("out", Ctx)],
  handle: (ctx, output, _port, data) => {
    calls.push({ node: ctx.node.nodeName, runId: runId(ctx) });
    if (++ctx.self.calls === 1) return fail(retryable(new Error("first call fails")));
    return output("out", { context: data.context });
  },
});

/** `front`: starts a run from a classic hop and answers `{runId}` synchronously (Go's BeginRun front door). */
export const front = defineComponent({
  info: { name: "front", description: "Front door", info: "begins a run" },
  ports: () => [target("in", Ctx, { default: { context: null } }), source("out", Ctx)],
  handle: async (ctx, output, _port, data) => {
    const started = await beginRun(ctx, () => output("out", { context: data.context }));
    if (started.result.kind === "fail") return started.result;
    return ok({ runId: started.runId, inRunAfter: runId(ctx) ?? null, run: await readRun(ctx, started.runId) });
  },
});

/** Reply wait of {@link door}, ms (tests shorten it). */
export const doorTimeout = { ms: 2000 };

/** `door`: begins a run whose hop to its own `reply` port comes back to the call (Go's BeginRunWithReply). */
export const door = defineComponent({
  info: { name: "door", description: "Door", info: "waits for its run's reply" },
  ports: () => [target("in", Ctx, { default: { context: null } }), target("reply", Type.Any()), source("out", Ctx)],
  handle: async (ctx, output, port, data) => {
    if (port === "reply") return fail(new Error("the reply hop reached handle"));
    const { runId: id, result } = await beginRunWithReply(ctx, "reply", () => output("out", { context: (data as { context: unknown }).context }), {
      timeoutMs: doorTimeout.ms,
    });
    if (result.kind === "fail") return result;
    return ok({ runId: id, reply: result.kind === "ok" ? result.value : null });
  },
});

/** A TinyNode label set marking a node durable (runtime-spec §2.2 step 2). */
export const DURABLE: Record<string, string> = { [EXECUTION_MODE_LABEL]: EXECUTION_MODE_DURABLE };

/** A scheduler of {@link MODULE} with these components and the default (node-metadata) ledger. */
export function durableScheduler(): Scheduler {
  const s = new Scheduler({ module: MODULE, debounceMs: 5, readyTimeoutMs: 50 });
  for (const d of [step, flakyStep, front, door]) s.install(d);
  return s;
}

/** An in-memory {@link State} (a fake for the ledger bound tests). */
export function memoryState(): State & { map: Map<string, Uint8Array> } {
  const map = new Map<string, Uint8Array>();
  return {
    map,
    get: async (k) => map.get(k),
    set: async (k, v) => void map.set(k, typeof v === "string" ? new TextEncoder().encode(v) : v),
    delete: async (k) => void map.delete(k),
    list: async (p = "") => [...map.keys()].filter((k) => k.startsWith(p)).sort(),
  };
}
