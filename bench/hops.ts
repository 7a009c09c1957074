/**
 * In-process hop throughput and latency through a 3-node chain (relay → relay → sink) with an
 * expression on every edge and schema validation on every hop. Runs on one core (one event loop).
 *
 * Prints JSON: [{name, value, unit, target, met}]. Never part of the test suite.
 *   ./node_modules/.bin/bun bench/hops.ts
 */
process.env.TINYHOST_LOG_LEVEL ??= "silent";
const { defineComponent, ok, source, target, Type } = await import("../src/sdk/index.ts");
const { Scheduler } = await import("../src/runtime/scheduler/index.ts");

const MODULE = "bench";
const name = (id: string) => `h.${MODULE}.${id}`;
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64");

const Ctx = Type.Object({ context: Type.Object({ n: Type.Number(), tag: Type.String() }) });
const relay = defineComponent({
  info: { name: "relay", description: "Relay", info: "" },
  ports: () => [target("in", Ctx), source("out", Ctx)],
  handle: (_c, output, _p, data) => output("out", { context: data.context }),
});
const sink = defineComponent({
  info: { name: "sink", description: "Sink", info: "" },
  ports: () => [target("in", Type.Object({ value: Type.Number(), label: Type.String() }))],
  handle: (_c, _o, _p, data) => ok(data.value),
});

const s = new Scheduler({ module: MODULE });
s.install(relay);
s.install(sink);
const node = (id: string, component: string, edges: Array<[string, string]>, ports: Array<[string, string, unknown]>) => ({
  metadata: { name: name(id) },
  spec: {
    module: MODULE,
    component,
    edges: edges.map(([port, to], i) => ({ id: `${id}-${i}`, port, to: name(to) })),
    ports: ports.map(([from, port, c]) => ({ from: from && name(from), port, configuration: b64(c) })),
  },
});
await s.update(node("a", "relay", [["out", "b:in"]], []));
await s.update(node("b", "relay", [["out", "c:in"]], [["a:out", "in", { context: "{{$.context}}" }]]));
await s.update(node("c", "sink", [], [["b:out", "in", { value: "{{$.context.n + 1}}", label: "n={{$.context.tag}}" }]]));

const HOPS_PER_CHAIN = 3; // signal → a, a → b, b → c
const to = `${name("a")}:in`;
const send = (i: number) => s.handle({ edgeId: "", from: "signal", to, data: { context: { n: i, tag: "t" } }, depth: 0 });

// Sanity: the chain returns n + 1.
const check = await send(41);
if (check.kind !== "ok" || check.value !== 42) throw new Error(`bench chain broken: ${JSON.stringify(check)}`);

// Warm-up, then throughput with a bounded number of chains in flight.
async function throughput(chains: number, concurrency: number): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < chains) await send(next++);
    }),
  );
  return ((chains * HOPS_PER_CHAIN) / (performance.now() - t0)) * 1000;
}
await throughput(50_000, 64);
const hopsPerSec = await throughput(300_000, 64);

// Latency: sequential chains, per-hop latency = chain time / 3.
const samples: number[] = [];
for (let i = 0; i < 50_000; i++) {
  const t = performance.now();
  await send(i);
  samples.push(((performance.now() - t) * 1000) / HOPS_PER_CHAIN);
}
samples.sort((x, y) => x - y);
const p = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))]!;

const out = [
  { name: "inprocess_hops_per_second", value: Math.round(hopsPerSec), unit: "hops/s", target: 300_000, met: hopsPerSec >= 300_000 },
  { name: "inprocess_hop_latency_p50", value: Number(p(0.5).toFixed(2)), unit: "µs", target: null, met: true },
  { name: "inprocess_hop_latency_p99", value: Number(p(0.99).toFixed(2)), unit: "µs", target: null, met: true },
];
console.log(JSON.stringify(out, null, 2));
await s.stopAll();
export {};
