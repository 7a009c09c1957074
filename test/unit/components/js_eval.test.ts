/**
 * js_eval against the Go js-module's own test cases (tiny-systems/modules js-module/components/eval
 * eval_test.go, read and rewritten as ours): the same scripts give the same results.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { ok, testComponent, type ComponentHarness } from "tinyhost";
import jsEval, { DEFAULT_SETTINGS } from "../../../components/js_eval.ts";

process.env.TINYHOST_LOG_LEVEL ??= "silent";

const unb64 = (s: string) => JSON.parse(Buffer.from(s, "base64").toString("utf8"));
const open: ComponentHarness[] = [];
afterEach(async () => {
  for (const h of open.splice(0)) await h.stop();
});

async function withScript(content: string, extra: Record<string, unknown> = {}): Promise<ComponentHarness> {
  const h = await testComponent(jsEval, { settings: { ...DEFAULT_SETTINGS, modules: [], script: { name: "main.js", content }, ...extra } });
  open.push(h);
  h.respond("response", (d) => ok(d));
  h.respond("error", (d) => ok({ errorPort: d }));
  return h;
}

async function resultOf(h: ComponentHarness, request: unknown) {
  const r = await h.send("request", request);
  return r;
}

describe("js_eval runs the js-module's test scripts with the same results", () => {
  test("a syntax error in the main script fails the settings", async () => {
    const h = await withScript("export default fction () {}");
    expect(h.status().error).toBe(true);
    expect(h.status().status).toContain("main.js:1:");
  });

  test("a script without a default-exported function fails the settings", async () => {
    const h = await withScript("export named function () {}");
    expect(h.status().error).toBe(true);
  });

  test("an empty script fails the settings", async () => {
    const h = await withScript("");
    expect(h.status().status).toContain("empty script");
  });

  test("a returned string becomes outputData", async () => {
    const h = await withScript(`export default function () { return "result";}`);
    expect(await resultOf(h, {})).toEqual(ok({ context: null, outputData: "result" }));
  });

  test("a returned integer stays an integer", async () => {
    const h = await withScript(`export default function () { return 34;}`);
    expect(await resultOf(h, {})).toEqual(ok({ context: null, outputData: 34 }));
  });

  test("the function receives inputData", async () => {
    const h = await withScript(`export default function (i) { return i + " world";}`);
    expect(await resultOf(h, { inputData: "hello" })).toEqual(ok({ context: null, outputData: "hello world" }));
  });

  test("an async function's resolved value becomes outputData", async () => {
    const h = await withScript(`export default async function (i) { return await new Promise((resolve, reject) => {resolve("done")})}`);
    expect(await resultOf(h, { inputData: "hello" })).toEqual(ok({ context: null, outputData: "done" }));
  });

  test("a promise of a promise resolves to the inner value", async () => {
    const h = await withScript(
      `export default async function (i) { return await new Promise((resolve, reject) => {resolve(new Promise((resolve, reject) => {resolve("done")}))})}`,
    );
    expect(await resultOf(h, { inputData: "hello" })).toEqual(ok({ context: null, outputData: "done" }));
  });

  test("a rejected promise fails the hop with the rejection value", async () => {
    const h = await withScript(`export default async function (i) { return await new Promise((resolve, reject) => {reject("error")})}`);
    const r = await resultOf(h, {});
    expect(r.kind).toBe("fail");
    expect(r.kind === "fail" && r.error.message).toBe("error");
  });

  test("with the error port enabled a throw goes to error with the context", async () => {
    const h = await withScript(`export default function () { throw new Error("something broke"); }`, { enableErrorPort: true });
    expect(h.status().ports!.map((p) => p.name)).toContain("error");
    expect(await resultOf(h, { context: "trace-123" })).toEqual(ok({ errorPort: { context: "trace-123", error: "something broke" } }));
  });

  test("with the error port disabled a throw fails the hop", async () => {
    const h = await withScript(`export default function () { throw new Error("fail"); }`);
    const r = await resultOf(h, {});
    expect(r.kind === "fail" && r.error.message).toBe("fail");
  });

  test("the request context passes through to the response", async () => {
    const h = await withScript(`export default function (i) { return i; }`);
    expect(await resultOf(h, { context: { traceId: "abc", step: 42 }, inputData: "data" })).toEqual(
      ok({ context: { traceId: "abc", step: 42 }, outputData: "data" }),
    );
  });

  test("a module from the includes can be imported by name", async () => {
    const h = await withScript(`import {add} from "math.js"; export default function(i) { return add(i, 10); }`, {
      modules: [{ name: "math.js", content: "export function add(a, b) { return a + b; }" }],
    });
    expect(await resultOf(h, { inputData: 5 })).toEqual(ok({ context: null, outputData: 15 }));
  });

  test("object input and output", async () => {
    const h = await withScript(`export default function(inp) { return {name: inp.name, upper: inp.name.toUpperCase()}; }`);
    expect(await resultOf(h, { inputData: { name: "alice" } })).toEqual(ok({ context: null, outputData: { name: "alice", upper: "ALICE" } }));
  });

  test("undefined and null results become a null outputData", async () => {
    const a = await withScript(`export default function() {}`);
    expect(await resultOf(a, {})).toEqual(ok({ context: null, outputData: null }));
    const b = await withScript(`export default function() { return null; }`);
    expect(await resultOf(b, {})).toEqual(ok({ context: null, outputData: null }));
  });

  test("a request before any settings compiled fails with handler is not initialised", async () => {
    const h = await testComponent(jsEval);
    open.push(h);
    const r = await h.send("request", {});
    expect(r.kind === "fail" && r.error.message).toStartWith("handler is not initialised");
  });

  test("a request to a node whose script does not compile fails naming the compile error", async () => {
    const h = await withScript("export default fction () {}");
    const r = await h.send("request", {});
    expect(r.kind).toBe("fail");
    const message = r.kind === "fail" ? r.error.message : "";
    expect(message).toStartWith("handler is not initialised: main.js:1:");
    expect(message).toBe(`handler is not initialised: ${(h.status().status ?? "").replace(/^.*?(main\.js:1:)/, "$1")}`);
  });

  test("module state survives between calls of one node", async () => {
    const h = await withScript(`let counter = 0; export default function() { counter++; return counter; }`);
    expect(await resultOf(h, {})).toEqual(ok({ context: null, outputData: 1 }));
    expect(await resultOf(h, {})).toEqual(ok({ context: null, outputData: 2 }));
  });

  test("32 concurrent requests each get their own answer", async () => {
    const h = await withScript(`export default function(inp) { return {doubled: inp.n * 2} }`);
    const rs = await Promise.all(Array.from({ length: 32 }, (_, n) => resultOf(h, { inputData: { n } })));
    expect(rs).toEqual(Array.from({ length: 32 }, (_, n) => ok({ context: null, outputData: { doubled: n * 2 } })));
  });

  test("an infinite loop is interrupted after timeoutSeconds and the node serves the next request", async () => {
    const h = await withScript(`export default function(inp) { if (inp.spin) { while(true){} } return {ok: true} }`, { timeoutSeconds: 1 });
    const r = await resultOf(h, { inputData: { spin: true } });
    expect(r.kind === "fail" && r.error.message).toBe("script timeout after 1s (timeoutSeconds setting)");
    expect(await resultOf(h, { inputData: { spin: false } })).toEqual(ok({ context: null, outputData: { ok: true } }));
  });

  test("the script may push onto its input (a JSON copy of the message)", async () => {
    const h = await withScript(`export default function(i) { i.items.push(3); return i.items }`);
    const input = { items: [1, 2] };
    expect(await resultOf(h, { inputData: input })).toEqual(ok({ context: null, outputData: [1, 2, 3] }));
    expect(input.items).toEqual([1, 2]);
  });
});

describe("js_eval's ports and settings are the js-module's", () => {
  test("request (left), response (right), _settings (top); error (bottom) only with enableErrorPort", async () => {
    const h = await withScript("export default (i) => i");
    const byName = (ports: { name: string; label: string; position: number; source: boolean }[]) =>
      ports.map((p) => [p.name, p.label, p.position, p.source]).sort();
    expect(byName(h.status().ports!)).toEqual([
      ["_settings", "Settings", 0, false],
      ["request", "Request", 3, false],
      ["response", "Response", 1, true],
    ]);
    await h.settings({ ...DEFAULT_SETTINGS, modules: [], script: { name: "main.js", content: "export default (i) => i" }, enableErrorPort: true });
    expect(byName(h.status().ports!)).toContainEqual(["error", "Error", 2, true]);
  });

  test("settings whose script does not compile are not adopted: the ports keep the previous settings", async () => {
    const h = await withScript("export default (i) => i", { outputData: { before: true } });
    const status = await h.settings({
      ...DEFAULT_SETTINGS,
      modules: [],
      script: { name: "main.js", content: "export default fction () {}" },
      enableErrorPort: true,
      outputData: { after: true },
    });
    expect(status.error).toBe(true);
    expect(status.ports!.map((p) => p.name)).not.toContain("error");
    expect(unb64(status.ports!.find((p) => p.name === "response")!.configuration)).toEqual({ context: null, outputData: { before: true } });
    expect((await resultOf(h, { inputData: 7 })).kind).toBe("ok"); // the previous script still serves
  });

  test("the settings schema carries the Go field names, titles, tabs and required fields", async () => {
    const h = await testComponent(jsEval);
    open.push(h);
    const settings = h.status().ports!.find((p) => p.name === "_settings")!;
    const schema = unb64(settings.schema) as {
      $defs: Record<string, { path?: string; required?: string[]; properties?: Record<string, Record<string, unknown>> }>;
    };
    const root = Object.values(schema.$defs).find((d) => d.path === "$")!;
    expect(Object.keys(root.properties!).sort()).toEqual(["enableErrorPort", "inputData", "modules", "outputData", "script", "timeoutSeconds"]);
    expect(root.required!.sort()).toEqual(["enableErrorPort", "modules", "outputData", "script"]);
    expect(root.properties!.timeoutSeconds!.title).toBe("Timeout (seconds)");
    expect(root.properties!.script!.tab ?? Object.values(schema.$defs).find((d) => d.path === "$.script")).toBeDefined();
    const defaults = unb64(settings.configuration);
    expect(defaults.script.name).toBe("main.js");
    expect(defaults.modules).toEqual([{ name: "utils.js", content: "export function typeOf(input) {return typeof input}" }]);
    expect(defaults.timeoutSeconds).toBe(0);
  });
});
