/**
 * Per-call overhead of a script (issue 17): the same logic as a compiled component and as a
 * TinyComponent-defined script component, each driven through the test harness (runner, port
 * validation, output), N sequential calls. Prints JSON; never part of the tests.
 */
import { defineComponent, ok, source, target, testComponent, Type } from "../src/sdk/index.ts";
import { defineScriptComponent } from "../src/runtime/script/defined.ts";

process.env.TINYHOST_LOG_LEVEL ??= "silent";
const N = Number(process.env.N ?? 5000);
const compiled = defineComponent({
  info: { name: "double_compiled", description: "", info: "" },
  ports: () => [target("request", Type.Object({ context: Type.Optional(Type.Unknown()), inputData: Type.Optional(Type.Unknown()) })), source("response", Type.Object({ context: Type.Unknown(), outputData: Type.Unknown() }))],
  handle: (_c, output, _p, d) => output("response", { context: d.context ?? null, outputData: { n: (d.inputData as { n: number }).n * 2 } }),
});
const scripted = await defineScriptComponent({ name: "double_script", runtime: "js", script: "export default (i) => ({ n: i.n * 2 })", inputSchema: "{}", outputSchema: "{}" });

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
console.log(JSON.stringify({ calls: N, compiledUs: +c.toFixed(1), scriptUs: +s.toFixed(1), overheadUs: +(s - c).toFixed(1) }));
process.exit(0);
