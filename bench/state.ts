/**
 * What awaiting a node-state write costs (issue 21: `await state.set` resolves once the status write
 * carrying it succeeded). In-process: 10 counter nodes, 16 messages in flight, a status sink that
 * answers after 2 ms, a 50 ms status window (1 s in production). Same run, interleaved rounds:
 * the bundled counter (its set not awaited) against the same component awaiting its set, and the
 * latency of one awaited set. Also checks that every count was persisted by the end (stopAll flushes).
 *
 * Prints JSON: [{name, value, unit, target, met}]. Never part of the test suite.
 *   ./node_modules/.bin/bun bench/state.ts
 */
process.env.TINYHOST_LOG_LEVEL ??= "silent";
const { Scheduler } = await import("../src/runtime/scheduler/index.ts");
const { defineComponent, target, Type } = await import("../src/sdk/index.ts");
const counter = (await import("../components/counter.ts")).default;
import type { State, TinyNode } from "../src/sdk/index.ts";
import type { ComponentDefinition } from "../src/core/component.ts";

const WINDOW_MS = 50;
const NODES = 10;
const IN_FLIGHT = 16;

/** The counter's read-add-write with the write awaited (what the bundled counter avoids). */
const awaitingCounter = defineComponent({
  info: { name: "counter", description: "Counter (awaits its set)", info: "" },
  state: () => ({ state: undefined as State | undefined, chain: Promise.resolve() }),
  ports: () => [target("in", Type.Object({ by: Type.Optional(Type.Integer()) }))],
  onState: (ctx, s) => void (ctx.self.state = s),
  async handle(ctx, _o, _p, data) {
    const self = ctx.self;
    const run = self.chain.then(async () => {
      const raw = await self.state!.get("count");
      await self.state!.set("count", String(Number(raw ? new TextDecoder().decode(raw) : "0") + (data.by || 1)));
    });
    self.chain = run.catch(() => {});
    await run;
  },
});

async function round(def: ComponentDefinition, messages: number): Promise<{ hopsPerSec: number; persisted: number }> {
  const live = new Map<string, TinyNode>();
  const s = new Scheduler({
    module: "bench",
    debounceMs: WINDOW_MS,
    statusSink: {
      async patchStatus(name, mutate) {
        await Bun.sleep(2);
        if (!live.has(name)) live.set(name, { metadata: { name }, spec: { module: "bench", component: "counter" }, status: {} });
        mutate(live.get(name)!);
      },
    },
  });
  s.install(def);
  const nodes = Array.from({ length: NODES }, (_, i) => `h.bench.c${i}`);
  for (const n of nodes) await s.update({ metadata: { name: n }, spec: { module: "bench", component: "counter" } });
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < messages) {
        const n = nodes[next++ % NODES]!;
        const r = await s.handle({ edgeId: "", from: "signal", to: `${n}:in`, data: { by: 1 }, depth: 0 });
        if (r.kind === "fail") throw r.error;
      }
    }),
  );
  const hopsPerSec = (messages / (performance.now() - t0)) * 1000;
  await s.stopAll();
  let persisted = 0;
  for (const n of nodes) persisted += Number(Buffer.from(live.get(n)?.status?.metadata?.["_state/count"] ?? "", "base64").toString() || 0);
  return { hopsPerSec, persisted };
}

/** Mean time of one awaited set on an idle node, ms. */
async function setLatency(samples: number): Promise<number> {
  const kept: { state?: State } = {};
  const holder = defineComponent({
    info: { name: "holder", description: "", info: "" },
    ports: () => [],
    onState: (_c, s) => void (kept.state = s),
    handle: () => {},
  });
  const s = new Scheduler({ module: "bench", debounceMs: WINDOW_MS, statusSink: { patchStatus: async () => void (await Bun.sleep(2)) } });
  s.install(holder);
  await s.update({ metadata: { name: "h.bench.s" }, spec: { module: "bench", component: "holder" } });
  let total = 0;
  for (let i = 0; i < samples; i++) {
    await Bun.sleep(WINDOW_MS + 5); // the window closed: the next set opens a new one
    const t = performance.now();
    await kept.state!.set("k", String(i));
    total += performance.now() - t;
  }
  await s.stopAll();
  return total / samples;
}

const fast: number[] = [];
const awaiting: number[] = [];
let lost = 0;
for (let r = 0; r < 3; r++) {
  const a = await round(counter, 100_000);
  const b = await round(awaitingCounter, 1_000);
  fast.push(a.hopsPerSec);
  awaiting.push(b.hopsPerSec);
  lost += 100_000 - a.persisted + (1_000 - b.persisted);
}
const median = (xs: number[]) => xs.slice().sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
const latency = await setLatency(20);

console.log(
  JSON.stringify(
    [
      { name: "state_counter_hops_per_second_set_not_awaited", value: Math.round(median(fast)), unit: "hops/s", target: null, met: true },
      { name: "state_counter_hops_per_second_set_awaited", value: Math.round(median(awaiting)), unit: "hops/s", target: null, met: true },
      { name: "state_awaited_set_latency_mean", value: Number(latency.toFixed(1)), unit: `ms (window ${WINDOW_MS} ms)`, target: null, met: true },
      { name: "state_counts_lost_at_stop", value: lost, unit: "counts", target: 0, met: lost === 0 },
    ],
    null,
    2,
  ),
);
