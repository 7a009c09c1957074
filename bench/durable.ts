/**
 * Durable hops per second over JetStream (runtime-spec §14.4), end to end through the runtime:
 * two modules in this process (own connections, real scheduler, runners and JetStream transport,
 * ledger in KV `TINY_EXEC`), runs of `entry (a, labelled durable) → mid (b) → end (a)` — every hop a
 * JetStream publish with PubAck, a pull-consumer delivery, a ledger read, the handler, a step
 * record write, an ack.
 *
 * Baseline, same run: raw nats.js doing the same broker work per hop with no runtime in between
 * (publish with a msg id → consume → KV get → KV put → ack), same number of hops in flight.
 *
 * Prints JSON rows on the last stdout line (bench/run.ts contract). `--quick` runs a short version.
 *   ./node_modules/.bin/bun bench/durable.ts [--quick]
 */
export {};
process.env.TINYHOST_LOG_LEVEL ??= "silent";
const { defineComponent, source, target, Type } = await import("../src/sdk/index.ts");
const { Scheduler } = await import("../src/runtime/scheduler/index.ts");
const { connectNats } = await import("../src/transport/nats/connect.ts");
const { JetStreamTransport } = await import("../src/transport/nats/jetstream.ts");
const { RunLedger } = await import("../src/runtime/durable/run-ledger.ts");
const { EXECUTION_MODE_DURABLE, EXECUTION_MODE_LABEL } = await import("../src/core/api/constants.ts");
const { startNats } = await import("../test/support/nats.ts");
const { AckPolicy, jetstream, jetstreamManager } = await import("@nats-io/jetstream");
const { Kvm } = await import("@nats-io/kv");

const quick = process.argv.includes("--quick");
const RUNS = quick ? 300 : 2_000;
const WINDOW = Number(process.env.DURABLE_BENCH_WINDOW ?? 64); // runs in flight
const HOPS_PER_RUN = 2; // entry → mid, mid → end (the entry hop itself is classic, in process)
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64");

const Ctx = Type.Object({ context: Type.Any() });
let ended = 0;
let wake: (() => void) | undefined;
const relay = defineComponent({
  info: { name: "relay", description: "Relay", info: "" },
  ports: () => [target("in", Ctx, { default: { context: null } }), source("out", Ctx)],
  handle: (_c, output, _p, data) => output("out", { context: data.context }),
});
const end = defineComponent({
  info: { name: "end", description: "End", info: "" },
  ports: () => [target("in", Ctx, { default: { context: null } })],
  handle: () => {
    ended++;
    wake?.();
  },
});

const srv = await startNats();
try {
  const node = (mod: string, id: string, component: string, o: { to?: string; from?: string; durable?: boolean }) => ({
    metadata: {
      name: `h.${mod}.${id}`,
      namespace: "bench",
      generation: 1,
      labels: (o.durable ? { [EXECUTION_MODE_LABEL]: EXECUTION_MODE_DURABLE } : {}) as Record<string, string>,
    },
    spec: {
      module: mod,
      component,
      edges: o.to ? [{ id: `${id}-out`, port: "out", to: `${o.to}:in` }] : [],
      ports: o.from ? [{ from: `${o.from}:out`, port: "in", configuration: b64({ context: "{{$.context}}" }) }] : [],
    },
  });
  const nodes = [
    node("a", "entry", "relay", { to: "h.b.mid", durable: true }),
    node("b", "mid", "relay", { to: "h.a.end", from: "h.a.entry" }),
    node("a", "end", "end", { from: "h.b.mid" }),
  ];
  const modules = [];
  for (const mod of ["a", "b"]) {
    const nc = await connectNats(srv.url);
    const transport = await JetStreamTransport.create({ nc, module: mod, pod: `${mod}-0` });
    const scheduler = new Scheduler({ module: mod, remote: transport, ledger: await RunLedger.open(nc) });
    scheduler.install(relay);
    scheduler.install(end);
    for (const n of nodes) if (n.spec.module === mod) await scheduler.update(n);
    await transport.serve({ handler: (m, s) => scheduler.handle(m, s) });
    modules.push({ nc, transport, scheduler });
  }
  const entry = modules[0]!.scheduler;
  const start = (i: number) => entry.handle({ edgeId: "", from: "signal", to: "h.a.entry:in", data: { context: { i } }, depth: 0 });

  async function ours(runs: number): Promise<number> {
    const base = ended;
    const t0 = performance.now();
    let next = 0;
    // A run is in flight from its start until its end step ran.
    while (ended - base < runs) {
      while (next < runs && next - (ended - base) < WINDOW) void start(next++);
      await new Promise<void>((r) => (wake = r));
    }
    return (runs * HOPS_PER_RUN) / ((performance.now() - t0) / 1000);
  }

  // Raw baseline: the broker work of one durable hop, without the runtime.
  const nc = await connectNats(srv.url);
  const js = jetstream(nc);
  const jsm = await jetstreamManager(nc);
  const kv = await new Kvm(nc).create("BENCH_RAW", { history: 1 });
  await jsm.streams.add({ name: "bench-raw", subjects: ["benchraw.>"] });
  await jsm.consumers.add("bench-raw", { durable_name: "raw", ack_policy: AckPolicy.Explicit, max_ack_pending: 1000 });
  let rawDone = 0;
  let rawWake: (() => void) | undefined;
  const consumer = await js.consumers.get("bench-raw", "raw");
  const messages = await consumer.consume();
  void (async () => {
    for await (const m of messages) {
      void (async () => {
        const key = `k.${m.headers?.get("Nats-Msg-Id") ?? m.seq}`;
        await kv.get(key);
        await kv.put(key, m.data);
        m.ack();
        rawDone++;
        rawWake?.();
      })();
    }
  })();
  async function raw(hops: number): Promise<number> {
    const base = rawDone;
    const t0 = performance.now();
    let next = 0;
    const payload = new TextEncoder().encode(JSON.stringify({ context: { i: 1 } }));
    while (rawDone - base < hops) {
      while (next < hops && next - (rawDone - base) < WINDOW * HOPS_PER_RUN) {
        const i = next++;
        void js.publish(`benchraw.${i % 2}`, payload, { msgID: `${t0}.${i}` });
      }
      await new Promise<void>((r) => (rawWake = r));
    }
    return hops / ((performance.now() - t0) / 1000);
  }

  await ours(quick ? 50 : 200); // warm-up
  await raw(quick ? 100 : 400);
  const oursRates: number[] = [];
  const rawRates: number[] = [];
  for (let round = 0; round < 2; round++) {
    oursRates.push(await ours(RUNS / 2));
    rawRates.push(await raw((RUNS / 2) * HOPS_PER_RUN));
    console.error(`[durable] round ${round + 1}: ours ${Math.round(oursRates[round]!)} hops/s, raw ${Math.round(rawRates[round]!)} hops/s`);
  }
  const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const o = avg(oursRates);
  const r = avg(rawRates);
  const stats = modules.map((m) => m.scheduler.durableStats);
  console.error(`[durable] steps recorded: ${stats.map((s) => s.recorded).join(" + ")}, skipped ${stats.map((s) => s.skipped).join(" + ")}`);
  await messages.close();
  for (const m of modules) {
    await m.transport.close(100);
    await m.nc.close();
  }
  await nc.close();
  console.log(
    JSON.stringify([
      {
        name: "durable JetStream hops through the runtime (publish → consume → ledger → handler → record → ack)",
        value: Math.round(o),
        unit: "hops/s",
        baseline: Math.round(r),
        ratio: +(o / r).toFixed(3),
        target: null,
        met: null,
        note: `${WINDOW} runs in flight, 2 modules in one process; baseline: raw nats.js publish(msgID) → consume → KV get → KV put → ack`,
      },
    ]),
  );
} finally {
  await srv.dispose();
}
