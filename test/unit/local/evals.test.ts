import { afterEach, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { defineComponent, meter, target, Type } from "tinyhost";
import { LocalHost } from "../../../src/local/host.ts";
import { loadStaticRegistry } from "../../../src/loader/static.ts";
import { check, failureText, type Observed } from "../../../src/local/evals/check.ts";
import { expandEnv, loadEvals, parseEvals, type EvalSpec } from "../../../src/local/evals/spec.ts";
import { passed, resolveNode, runEval } from "../../../src/local/evals/run.ts";
import { runEvalCommand } from "../../../src/cli/commands/eval.ts";

/** The platform's own eval flow (test/fixtures/flows/tiny-eval-csv-smoke/SOURCE.txt), as published. */
const SMOKE = resolve(import.meta.dir, "../../fixtures/flows/tiny-eval-csv-smoke");

const hosts: LocalHost[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const obs = (payloads: Record<string, string[]>, more: Partial<Observed> = {}): Observed => ({ payloads, errors: 0, handled: 0, usage: {}, ...more });
const spec = async (yaml: string): Promise<EvalSpec> => (await parseEvals("t.yaml", yaml))[0]!;

describe("eval specs (the SDK's pkg/evals format)", () => {
  test("one eval or a list; port defaults to _control, timeout to 60s, a Go duration otherwise", async () => {
    const one = await parseEvals("a.yaml", "name: x\ntrigger: {node: sig}\n");
    expect(one).toEqual([{ name: "x", trigger: { node: "sig", port: "_control" }, timeoutMs: 60_000, expect: {}, path: "a.yaml" }]);
    const list = await parseEvals("b.yaml", "- name: a\n  trigger: {node: sig, port: in}\n  timeout: 1m30s\n- name: b\n  trigger: {node: sig2}\n");
    expect(list.map((s) => [s.name, s.trigger.port, s.timeoutMs])).toEqual([
      ["a", "in", 90_000],
      ["b", "_control", 60_000],
    ]);
    expect(await parseEvals("c.yaml", "  \n")).toEqual([]);
  });

  test('YAML 1.1 as the SDK reads it: a bare n is false, which a string field reads as "false"', async () => {
    expect((await spec("name: 5\ntrigger: {node: n}")).trigger.node).toBe("false");
    expect((await spec("name: 5\ntrigger: {node: n}")).name).toBe("5");
  });

  test("Go's validation messages, prefixed with the file", async () => {
    await expect(parseEvals("a.yaml", "trigger: {node: sig}")).rejects.toThrow("a.yaml: eval has no name — the name is what a failure reports");
    await expect(parseEvals("a.yaml", "name: x")).rejects.toThrow("a.yaml: x: trigger.node is required — an eval that fires nothing checks nothing");
    await expect(parseEvals("a.yaml", "name: x\ntrigger: {node: sig}\nexpect: {arrives: [{at: nocolon}]}")).rejects.toThrow(
      'a.yaml: x: expect.arrives[0].at must be "<node>:<port>", got "nocolon"',
    );
    await expect(parseEvals("a.yaml", "name: x\ntrigger: {node: sig}\ntimeout: 45")).rejects.toThrow(
      'a.yaml: timeout: bad duration "45": time: invalid duration "45" (a Go duration: 45s, 1m30s)',
    );
    await expect(parseEvals("a.yaml", "- name: a\n  trigger: {node: sig}\n- name: b\n  trigger: {node: sig}\n  timeout: fast")).rejects.toThrow(
      'a.yaml: eval 2: timeout: bad duration "fast"',
    );
    await expect(parseEvals("a.yaml", "name: x\ntrigger: {node: sig}\nexpect: {errors: two}")).rejects.toThrow('expect.errors must be an integer, got "two"');
  });

  test("${VAR} in the trigger data comes from the environment; unset ones are named, sorted", async () => {
    const s = await spec("name: x\ntrigger: {node: sig, data: {key: '${K}', list: ['${EMPTY}-a'], num: 1}}");
    expandEnv(s, { K: "v", EMPTY: "" });
    expect(s.trigger.data).toEqual({ key: "v", list: ["-a"], num: 1 });
    const t = await spec("name: x\ntrigger: {node: sig, data: {a: '${B} ${A}'}}");
    expect(() => expandEnv(t, {})).toThrow("x: unset environment variable(s): A, B");
  });

  test("a directory is read in path order, .yaml and .yml only", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tinyhost-evals-"));
    dirs.push(dir);
    writeFileSync(join(dir, "b.yml"), "name: second\ntrigger: {node: sig}\n");
    writeFileSync(join(dir, "a.yaml"), "name: first\ntrigger: {node: sig}\n");
    writeFileSync(join(dir, "notes.txt"), "name: not an eval");
    expect((await loadEvals(dir)).map((s) => s.name)).toEqual(["first", "second"]);
  });

  test("a misspelt key is accepted, as Go's non-strict YAML does, with a warning naming the key and the file", async () => {
    const warnings: string[] = [];
    const yaml =
      "- name: a\n  trigger: {node: sig}\n- name: b\n  trigger: {node: sig, prot: in}\n  expekt: {errors: 1}\n  expect: {arrives: [{at: 'x:y', equal: 1}], usage: {tokens: {mx: 3}}}\n";
    const specs = await parseEvals("a.yaml", yaml, (w) => warnings.push(w));
    expect(specs.map((s) => s.name)).toEqual(["a", "b"]);
    expect(specs[1]!.expect).toEqual({ arrives: [{ at: "x:y" }], usage: { tokens: {} } });
    expect(warnings).toEqual([
      'a.yaml: eval 2: unknown key "expekt" ignored (known: name, flow, trigger, timeout, expect)',
      'a.yaml: eval 2: unknown key "prot" in trigger ignored (known: node, port, data)',
      'a.yaml: eval 2: unknown key "equal" in expect.arrives[0] ignored (known: at, path, equals, contains, matches, exists, min, max)',
      'a.yaml: eval 2: unknown key "mx" in expect.usage.tokens ignored (known: min, max)',
    ]);
    const none: string[] = [];
    await parseEvals("b.yaml", "name: x\ntrigger: {node: sig}\nexpect: {errors: 0}\n", (w) => none.push(w));
    expect(none).toEqual([]);
  });

  test("tinyhost eval prints the warning on stderr and goes on", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tinyhost-evals-"));
    dirs.push(dir);
    writeFileSync(join(dir, "e.yaml"), "name: x\ntrigger: {node: sig}\nexpekt: {errors: 1}\n");
    const err: string[] = [];
    const code = await runEvalCommand(
      { flowDir: join(dir, "no-such-flow"), evals: join(dir, "e.yaml"), json: false, verbose: false },
      () => {},
      (l) => err.push(l),
    );
    expect(code).toBe(1); // the flow directory is missing: the run itself fails after the warning
    expect(err[0]).toBe(`tinyhost eval: warning: ${join(dir, "e.yaml")}: unknown key "expekt" ignored (known: name, flow, trigger, timeout, expect)`);
  });

  test("a negative timeout is refused, naming the field and the value", async () => {
    await expect(parseEvals("a.yaml", "name: x\ntrigger: {node: sig}\ntimeout: -5s")).rejects.toThrow('a.yaml: timeout: "-5s" is negative');
  });

  test("an evals file with no evals is refused: no evals in <file>", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tinyhost-evals-"));
    dirs.push(dir);
    for (const [f, text] of [
      ["empty.yaml", ""],
      ["blank.yaml", "  \n\n"],
    ] as const) {
      writeFileSync(join(dir, f), text);
      await expect(loadEvals(join(dir, f))).rejects.toThrow(`no evals in ${join(dir, f)}`);
    }
  });
});

describe("check (Go evals.Check)", () => {
  const p = { "f.x.debug-1:in": ['{"count":2,"rows":[{"name":"a"},{"name":"web, edge","n":7}]}'], "f.x.other:out": ["plain text"] };

  test("arrivals by suffix, JSONPath, equals across YAML types, contains, matches, min/max, exists", async () => {
    const s = await spec(`name: x
trigger: {node: sig}
expect:
  arrives:
    - {at: "debug-1:in", path: "$.count", equals: 2}
    - {at: "debug-1:in", path: "$.rows[1].name", equals: "web, edge"}
    - {at: "debug-1:in", path: "$.rows[1].n", min: 7, max: 7}
    - {at: "debug-1:in", path: "$.rows", contains: "edge"}
    - {at: "debug-1:in", path: "$.rows[0].name", matches: "^a$"}
    - {at: "debug-1:in", path: "$.missing", exists: false}
    - {at: "other:out", equals: "plain text"}
    - {at: "other:out"}
`);
    expect(check(s, obs(p))).toEqual([]);
  });

  test("failures say what was expected and what was there", async () => {
    const s = await spec(`name: x
trigger: {node: sig}
expect:
  errors: 1
  silent: ["debug-1:in"]
  arrives:
    - {at: "debug-1:in", path: "$.count", equals: 3}
    - {at: "debug-1:in", path: "$.rows[0]", equals: {name: b}}
    - {at: "debug-1:in", path: "$.rows[0].name", min: 1}
    - {at: "nowhere:in"}
  usage: {tokens: {max: 10}}
`);
    expect(check(s, obs(p, { handled: 2 })).map(failureText)).toEqual([
      "expected 1 unhandled errors — got 0 (plus 2 caught by an error port)",
      "at debug-1:in $.count: expected 3 — got 2",
      'at debug-1:in $.rows[0]: expected map[name:b] — got {"name":"a"}',
      "at debug-1:in $.rows[0].name: expected >= 1 — got a (not a number)",
      "expected a message at nowhere:in — got messages arrived at f.x.debug-1:in, f.x.other:out",
      "expected nothing at debug-1:in — got 1 message(s) arrived",
      'expected the run to meter "tokens" — got nothing metered under that unit',
    ]);
  });

  test("any of several payloads at a port may satisfy an arrival; with none, the last one seen is reported", async () => {
    const s = await spec('name: x\ntrigger: {node: sig}\nexpect: {arrives: [{at: "p:in", path: "$.n", equals: 2}]}');
    expect(check(s, obs({ "a.b.p:in": ['{"n":1}', '{"n":2}'] }))).toEqual([]);
    expect(check(s, obs({ "a.b.p:in": ['{"n":1}', "not json"] })).map(failureText)).toEqual(["at p:in $.n: expected 2 — got payload is not JSON: not json"]);
  });
});

describe("tinyhost eval on the platform's eval flow", () => {
  test("the fixture is the published flow, unchanged (SOURCE.txt's sha256)", () => {
    const source = readFileSync(join(SMOKE, "SOURCE.txt"), "utf8");
    for (const f of ["flow.yaml", "evals/csv.yaml"]) {
      const sum = createHash("sha256")
        .update(readFileSync(join(SMOKE, f)))
        .digest("hex");
      expect(source).toContain(`${sum}  ${f}`);
    }
  });

  test("both evals pass: csv_decode and text_chunk (encoding-module) fed by a common-module signal", async () => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runEvalCommand(
      { flowDir: SMOKE, evals: join(SMOKE, "evals"), json: false, verbose: false },
      (l) => out.push(l),
      (l) => err.push(l),
    );
    expect(err).toEqual([]);
    expect(out.slice(1).map((l) => l.replace(/ \(\d+(\.\d+)?m?s\)/, ""))).toEqual([
      "PASS  csv_decode keeps a quoted comma intact and infers numbers",
      "PASS  a chunked document keeps its overlap",
      "evals: 2 passed, 0 failed",
    ]);
    expect(code).toBe(0);
  });

  test("what the run produced: the trigger, both branches, the emit with no edge; a wrong claim fails with the value seen", async () => {
    const host = await LocalHost.start({ dir: SMOKE, components: loadStaticRegistry().list(), statePath: null, watch: false, report: () => {} });
    hosts.push(host);
    const s = await spec(`name: wrong
trigger: {node: signal-eval, data: {send: true}}
timeout: 10s
expect:
  arrives:
    - {at: "debug-eval:in", path: "$.count", equals: 3}
  silent: ["csv-decode-eval:error"]
`);
    const r = await runEval(host, s, { settleMs: 100 });
    expect(r.node).toBe("eval01.tinysystems-common-module-v0.signal-eval");
    expect(Object.keys(r.observed.payloads).sort()).toEqual([
      "eval01.tinysystems-common-module-v0.debug-eval:in",
      "eval01.tinysystems-common-module-v0.signal-eval:_control",
      "eval01.tinysystems-common-module-v0.signal-eval:out",
      "eval01.tinysystems-encoding-module-v0.csv-decode-eval:request",
      "eval01.tinysystems-encoding-module-v0.csv-decode-eval:response",
      "eval01.tinysystems-encoding-module-v0.text-chunk-eval:request",
      "eval01.tinysystems-encoding-module-v0.text-chunk-eval:response",
    ]);
    expect(r.observed.errors).toBe(0);
    expect(passed(r)).toBe(false);
    expect(r.failures.map(failureText)).toEqual(["at debug-eval:in $.count: expected 3 — got 2"]);
  });

  test("an unknown or ambiguous trigger node is an error of the eval, not a failed claim", async () => {
    expect(() => resolveNode(["a.m.signal-1", "b.m.signal-1"], "m.signal-1")).toThrow(
      'trigger node "m.signal-1" is ambiguous: it ends 2 node names (a.m.signal-1, b.m.signal-1)',
    );
    expect(resolveNode(["a.m.signal-1", "a.m.xsignal-1"], "a.m.signal-1")).toBe("a.m.signal-1");
    expect(resolveNode(["a.m.signal-1", "a.m.xsignal-1"], ".m.signal-1")).toBe("a.m.signal-1");
    const host = await LocalHost.start({ dir: SMOKE, components: loadStaticRegistry().list(), statePath: null, watch: false, report: () => {} });
    hosts.push(host);
    const r = await runEval(host, await spec("name: x\ntrigger: {node: nope}"));
    expect(r.error).toContain('trigger node "nope" matches no node of the flow');
    const bad = await runEval(host, await spec("name: why\ntrigger: {node: signal-eval, port: nosuch}\ntimeout: 5s"));
    expect(bad.error).toContain("fire eval01.tinysystems-common-module-v0.signal-eval:nosuch:");
  });

  test("an escaped failure is counted; errors: N accepts exactly N", async () => {
    const host = await LocalHost.start({ dir: SMOKE, components: loadStaticRegistry().list(), statePath: null, watch: false, report: () => {} });
    hosts.push(host);
    // csv_decode fails (no error port) on rows of unequal length; the failure escapes back to the signal's emit.
    const s = await spec(`name: bad csv
trigger: {node: csv-decode-eval, port: request, data: {encoded: "a,b\\n1\\n"}}
timeout: 5s
expect: {errors: 1}
`);
    const r = await runEval(host, s, { settleMs: 100 });
    expect(r.observed.errors).toBe(1);
    expect(r.failures).toEqual([]);
  });
});

test("usage a component meters on its hops is summed per unit, as the platform sums the spans' tiny.usage attributes", async () => {
  const metered = defineComponent({
    info: { name: "metered", description: "Metered", info: "meters tokens per call" },
    ports: () => [target("in", Type.Object({ tokens: Type.Number() }), { default: { tokens: 0 } })],
    handle: (ctx, _o, _p, data) => {
      meter(ctx, "tokens", data.tokens);
      meter(ctx, "calls", 1);
    },
  });
  const dir = mkdtempSync(join(tmpdir(), "tinyhost-evals-usage-"));
  dirs.push(dir);
  writeFileSync(
    join(dir, "n.yaml"),
    "apiVersion: operator.tinysystems.io/v1alpha1\nkind: TinyNode\nmetadata:\n  name: abcd1234.tinyhost.metered-aaaaa\n  labels: {tinysystems.io/flow-name: f, tinysystems.io/project-name: p}\nspec:\n  module: tinyhost\n  component: metered\n",
  );
  const host = await LocalHost.start({ dir, components: [metered], statePath: null, watch: false, report: () => {} });
  hosts.push(host);
  const s = await spec(
    "name: u\ntrigger: {node: metered-aaaaa, port: in, data: {tokens: 120}}\ntimeout: 5s\nexpect: {usage: {tokens: {max: 100}, calls: {min: 1, max: 1}}}",
  );
  const r = await runEval(host, s, { settleMs: 50 });
  expect(r.observed.usage).toEqual({ tokens: 120, calls: 1 });
  expect(r.failures.map(failureText)).toEqual(["expected tokens <= 100 — got 120"]);
});
