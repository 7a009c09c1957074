/**
 * Per-call overhead of a script (issue 17): the same logic as a compiled component and as a
 * TinyComponent-defined script component, each driven through the test harness (runner, port
 * validation, output), N sequential calls. Prints the rows of bench/run.ts (the script's time per call
 * with the compiled component's as its same-run baseline); never part of the tests.
 */
import { defineComponent, ok, source, target, testComponent, Type } from "../src/sdk/index.ts";
import { defineScriptComponent } from "../src/runtime/script/defined.ts";

process.env.TINYHOST_LOG_LEVEL ??= "silent";
const N = Number(process.env.N ?? 5000);
const compiled = defineComponent({
  info: { name: "double_compiled", description: "", info: "" },
  ports: () => [
    target("request", Type.Object({ context: Type.Optional(Type.Unknown()), inputData: Type.Optional(Type.Unknown()) })),
    source("response", Type.Object({ context: Type.Unknown(), outputData: Type.Unknown() })),
  ],
  handle: (_c, output, _p, d) => output("response", { context: d.context ?? null, outputData: { n: (d.inputData as { n: number }).n * 2 } }),
});
const scripted = await defineScriptComponent({
  name: "double_script",
  runtime: "js",
  script: "export default (i) => ({ n: i.n * 2 })",
  inputSchema: "{}",
  outputSchema: "{}",
});

async function perCallUs(def: typeof compiled): Promise<number> {
  const h = await testComponent(def);
  h.respond("response", (d) => ok(d));
  for (let i = 0; i < 200; i++) await h.send("request", { inputData: { n: i } }); // warm-up (and the sandbox's start)
  const t0 = performance.now();
  for (let i = 0; i < N; i++) await h.send("request", { inputData: { n: i } });
  const us = ((performance.now() - t0) * 1000) / N;
  await h.stop();
  return us;
}
const c = await perCallUs(compiled);
const s = await perCallUs(scripted as typeof compiled);
const note = `${N} sequential calls through the test harness; baseline: the same logic as a compiled component`;
console.log(
  JSON.stringify([
    { name: "script_call_time", value: +s.toFixed(1), unit: "µs/call", baseline: +c.toFixed(1), ratio: +(s / c).toFixed(2), note },
    { name: "script_call_overhead", value: +(s - c).toFixed(1), unit: "µs/call", note: "script minus compiled: the sandbox Worker round trip" },
  ]),
);
process.exit(0);
