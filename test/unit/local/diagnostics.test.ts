/**
 * What local mode prints when a flow goes wrong: hop failures once and where they happened, rate
 * limited; notes for emits that go nowhere; static problems (edges, expressions) at load; runtime
 * warnings as human lines; accurate "fixed" lines; one process per state file. Real LocalHost and
 * scheduler, fake components.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { defineComponent, fail, source, target, Type, type Result } from "tinyhost";
import { LocalHost, type LocalHostOptions } from "../../../src/local/host.ts";
import { nodeNameOf, renderFlowFiles, type FlowDescription } from "../../../src/cli/scaffold/flow-builder.ts";
import { StateLockedError } from "../../../src/local/errors.ts";
import { FROM_SIGNAL } from "../../../src/core/hop.ts";

const pulse = defineComponent({
  info: { name: "pulse", description: "Pulse", info: "emits {n} on out per control go and returns the result" },
  ports: () => [target("_control", Type.Object({ n: Type.Unknown() }), { default: { n: 0 } }), source("out", Type.Object({ n: Type.Unknown() }))],
  onControl: (_ctx, control, output) => output("out", { n: control.n }),
  handle: () => undefined,
});

const relay = defineComponent({
  info: { name: "relay", description: "Relay", info: "passes in to out and returns the downstream result" },
  ports: () => [target("in", Type.Object({ n: Type.Unknown() }), { default: { n: 0 } }), source("out", Type.Object({ n: Type.Unknown() }))],
  handle: (_ctx, output, _port, data) => output("out", data),
});

const thrower = defineComponent({
  info: { name: "thrower", description: "Thrower", info: "throws" },
  ports: () => [target("in", Type.Unknown(), { default: null })],
  handle() {
    throw new Error("thrower cannot cope");
  },
});

const strict = defineComponent({
  info: { name: "strict", description: "Strict", info: "wants an integer n" },
  ports: () => [target("in", Type.Object({ n: Type.Integer() }), { default: { n: 0 } })],
  handle: () => undefined,
});

const typo = defineComponent({
  info: { name: "typo", description: "Typo", info: "emits on a port it does not declare, then on a declared one without edges" },
  ports: () => [target("in", Type.Unknown(), { default: null }), source("out", Type.Unknown())],
  async handle(_ctx, output) {
    await (output as (port: string, data: unknown) => Promise<Result>)("ouput", 1);
    return output("out", 2);
  },
});

const caller = defineComponent({
  info: { name: "caller", description: "Caller", info: "logs a warning when its downstream fails, and another unrelated one" },
  ports: () => [target("in", Type.Unknown(), { default: null }), source("out", Type.Unknown())],
  async handle(ctx, output) {
    const r = await output("out", { n: 1 });
    if (r.kind === "fail") ctx.log.warn({ err: r.error.message }, "caller: downstream failed");
    ctx.log.warn({ err: "cache is cold", key: "k1" }, "caller: slow path");
    return r.kind === "fail" ? fail(r.error) : r;
  },
});

const needy = defineComponent({
  info: { name: "needy", description: "Needy", info: "settings need a name" },
  ports: () => [target("_settings", Type.Object({ name: Type.String() }), { default: { name: "x" } }), target("in", Type.Unknown(), { default: null })],
  handle: () => undefined,
});

const COMPONENTS = [pulse, relay, thrower, strict, typo, caller, needy];

const hosts: LocalHost[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "tinyhost-diag-"));
  dirs.push(d);
  return d;
}

function writeFlow(dir: string, desc: FlowDescription): void {
  for (const f of renderFlowFiles(desc)) writeFileSync(join(dir, f.name), f.text);
}

async function start(dir: string, lines: string[], extra: Partial<LocalHostOptions> = {}): Promise<LocalHost> {
  const host = await LocalHost.start({
    dir,
    components: COMPONENTS,
    watch: false,
    debounceMs: 10,
    stateDebounceMs: 5,
    resyncMs: 0,
    statePath: null,
    repeatWindowMs: 200,
    report: (l) => lines.push(l),
    ...extra,
  });
  hosts.push(host);
  return host;
}

const flow = (nodes: FlowDescription["nodes"], edges: FlowDescription["edges"] = []): FlowDescription => ({
  project: "p",
  flow: "f",
  module: "mod",
  nodes,
  edges,
});

/** Sends `{n}` to the pulse node's `_control`, as the start signal would. */
function go(host: LocalHost, desc: FlowDescription, n: unknown = 1): Promise<Result> {
  return host.scheduler.handle({ edgeId: "", from: FROM_SIGNAL, to: `${nodeNameOf(desc, "pulse")}:_control`, data: { n }, depth: 0 });
}

const errorsAbout = (lines: string[]) => lines.filter((l) => l.startsWith("error: node ") || l.startsWith("warning: node "));

describe("local mode prints hop failures", () => {
  test("a handler that throws is printed once, at the node where it happened, not for each caller up the chain", async () => {
    const desc = flow({ pulse: { component: "pulse" }, relay: { component: "relay" }, thrower: { component: "thrower" } }, [
      { from: "pulse:out", to: "relay:in", configuration: { n: "{{$.n}}" } },
      { from: "relay:out", to: "thrower:in", configuration: "{{$}}" },
    ]);
    const dir = tempDir();
    writeFlow(dir, desc);
    const lines: string[] = [];
    const host = await start(dir, lines);
    const r = await go(host, desc);
    expect(r.kind).toBe("fail"); // the caller still gets the failure
    expect(errorsAbout(lines)).toEqual([`error: node ${nodeNameOf(desc, "thrower")} port in (from ${nodeNameOf(desc, "relay")}:out): thrower cannot cope`]);
  });

  test("repeats of the same failure are counted and summarised once per window", async () => {
    const desc = flow({ pulse: { component: "pulse" }, thrower: { component: "thrower" } }, [{ from: "pulse:out", to: "thrower:in", configuration: "{{$}}" }]);
    const dir = tempDir();
    writeFlow(dir, desc);
    const lines: string[] = [];
    const host = await start(dir, lines);
    for (let i = 0; i < 20; i++) await go(host, desc);
    const thrower = nodeNameOf(desc, "thrower");
    expect(errorsAbout(lines)).toEqual([`error: node ${thrower} port in (from ${nodeNameOf(desc, "pulse")}:out): thrower cannot cope`]);
    await Bun.sleep(400); // the 200 ms window passes
    expect(errorsAbout(lines)).toEqual([
      `error: node ${thrower} port in (from ${nodeNameOf(desc, "pulse")}:out): thrower cannot cope`,
      `error: node ${thrower} port in (from ${nodeNameOf(desc, "pulse")}:out): thrower cannot cope (repeated 19 more times in the last 0.2 s)`,
    ]);
  });

  test("a mapping expression that fails on a payload is printed with the expression and field", async () => {
    const desc = flow({ pulse: { component: "pulse" }, relay: { component: "relay" } }, [
      { from: "pulse:out", to: "relay:in", configuration: { n: "{{$.n * 2}}" } },
    ]);
    const dir = tempDir();
    writeFlow(dir, desc);
    const lines: string[] = [];
    const host = await start(dir, lines);
    await go(host, desc, "text");
    expect(errorsAbout(lines)).toEqual([
      `error: node ${nodeNameOf(desc, "relay")} port in (from ${nodeNameOf(desc, "pulse")}:out): expression "{{$.n * 2}}": cannot apply "*" to string and number (in field "n")`,
    ]);
  });

  test("a port validation failure is printed at the receiving node", async () => {
    const desc = flow({ pulse: { component: "pulse" }, strict: { component: "strict" } }, [
      { from: "pulse:out", to: "strict:in", configuration: { n: "{{$.n}}" } },
    ]);
    const dir = tempDir();
    writeFlow(dir, desc);
    const lines: string[] = [];
    const host = await start(dir, lines);
    await go(host, desc, "seven");
    const strictNode = nodeNameOf(desc, "strict");
    expect(errorsAbout(lines)).toHaveLength(1);
    expect(errorsAbout(lines)[0]).toStartWith(`error: node ${strictNode} port in (from ${nodeNameOf(desc, "pulse")}:out): field `);
    expect(errorsAbout(lines)[0]).toContain('breaks rule "type"');
  });

  test("an emit on an undeclared port, and one on a port without edges, get a one-time note each", async () => {
    const desc = flow({ pulse: { component: "pulse" }, typo: { component: "typo" } }, [{ from: "pulse:out", to: "typo:in", configuration: "{{$}}" }]);
    const dir = tempDir();
    writeFlow(dir, desc);
    const lines: string[] = [];
    const host = await start(dir, lines);
    await go(host, desc);
    await go(host, desc);
    const node = nodeNameOf(desc, "typo");
    expect(lines.filter((l) => l.startsWith("note: node "))).toEqual([
      `note: node ${node} emitted on port "ouput", which typo does not declare as an output (its output ports: out); the message went nowhere`,
      `note: node ${node} emitted on port "out", which has no edges; the message went nowhere`,
    ]);
  });

  test("a component warning is one human line; a warning that repeats a printed failure is dropped", async () => {
    const desc = flow({ pulse: { component: "pulse" }, caller: { component: "caller" }, thrower: { component: "thrower" } }, [
      { from: "pulse:out", to: "caller:in", configuration: "{{$}}" },
      { from: "caller:out", to: "thrower:in", configuration: "{{$}}" },
    ]);
    const dir = tempDir();
    writeFlow(dir, desc);
    const lines: string[] = [];
    const host = await start(dir, lines);
    await go(host, desc);
    expect(errorsAbout(lines)).toEqual([
      `error: node ${nodeNameOf(desc, "thrower")} port in (from ${nodeNameOf(desc, "caller")}:out): thrower cannot cope`,
      `warning: node ${nodeNameOf(desc, "caller")} port in: caller: slow path: cache is cold (key=k1)`,
    ]);
  });
});

describe("local mode reports static problems at load", () => {
  test("an edge to an undeclared node is reported naming file, node, edge and target; its hops fail at once", async () => {
    const desc = flow({ pulse: { component: "pulse" } });
    const dir = tempDir();
    writeFlow(dir, desc);
    const pulseFile = join(dir, "pulse.yaml");
    const pulseNode = nodeNameOf(desc, "pulse");
    writeFileSync(
      pulseFile,
      `${(await Bun.file(pulseFile).text()).trimEnd()}\n  edges:\n    - id: e1\n      port: out\n      to: 0000aaaa.mod.ghost-12345:in\n`,
    );
    const lines: string[] = [];
    const host = await start(dir, lines);
    expect(lines.filter((l) => l.includes("e1"))).toEqual([
      `error: ${pulseFile}:15: node ${pulseNode}: edge e1 (port out → 0000aaaa.mod.ghost-12345:in): no node 0000aaaa.mod.ghost-12345 is declared in the manifests; hops on this edge fail`,
    ]);
    const r = await go(host, desc);
    expect(r.kind === "fail" && (r.error as Error & { code?: string }).code).toBe("NODE_NOT_DECLARED"); // not NODE_NOT_FOUND after a 5 s wait
    expect(errorsAbout(lines)).toEqual([
      `error: node ${pulseNode} port out: no node 0000aaaa.mod.ghost-12345 is declared in the manifests (hop to 0000aaaa.mod.ghost-12345:in)`,
    ]);
  });

  test("an edge to a port the target does not have is reported, and with nothing pending its hops fail at once", async () => {
    const desc = flow({ pulse: { component: "pulse" }, relay: { component: "relay" } }, [{ from: "pulse:out", to: "relay:inn", configuration: "{{$}}" }]);
    const dir = tempDir();
    writeFlow(dir, desc);
    const lines: string[] = [];
    const host = await start(dir, lines);
    const relayNode = nodeNameOf(desc, "relay");
    expect(lines.filter((l) => l.includes("has no port"))).toEqual([
      `error: ${join(dir, "pulse.yaml")}:15: node ${nodeNameOf(desc, "pulse")}: edge ${nodeNameOf(desc, "pulse")}_out-${relayNode}_inn (port out → ${relayNode}:inn): relay node ${relayNode} has no port "inn" (its input ports: in); hops on this edge fail`,
    ]);
    const r = await go(host, desc);
    expect(r.kind === "fail" && (r.error as Error & { code?: string }).code).toBe("PORT_NOT_DECLARED");
  });

  test("a settings error is one line: the node's status naming its file (no separate log line)", async () => {
    const desc = flow({ needy: { component: "needy", settings: { name: 7 } } });
    const dir = tempDir();
    writeFlow(dir, desc);
    const lines: string[] = [];
    await start(dir, lines);
    const node = nodeNameOf(desc, "needy");
    expect(lines.filter((l) => l.includes(node))).toEqual([
      `node ${node}  needy  error: ${join(dir, "needy.yaml")}:3: port _settings: field $.name breaks rule "type": $.name must be a string, got number 7`,
    ]);
  });
});

describe("local mode says each thing once", () => {
  test("a skipped document is noted when it appears, not again on every reload", async () => {
    const dir = tempDir();
    writeFlow(dir, flow({ relay: { component: "relay" } }));
    writeFileSync(join(dir, "cm.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n");
    const lines: string[] = [];
    const host = await start(dir, lines);
    await host.reloadManifests();
    await host.reloadManifests();
    expect(lines.filter((l) => l.includes("skipped ConfigMap"))).toEqual([
      `note: ${join(dir, "cm.yaml")}:1: skipped ConfigMap cm (local mode runs TinyProject, TinyFlow, TinyNode and TinyComponent)`,
    ]);
  });
  test("an unknown component is one line (the problem, with file and line), not also a status line", async () => {
    const desc = flow({ ghost: { component: "nope" } });
    const dir = tempDir();
    writeFlow(dir, desc);
    const lines: string[] = [];
    await start(dir, lines);
    const node = nodeNameOf(desc, "ghost");
    expect(lines.filter((l) => l.includes(node))).toEqual([
      `error: ${join(dir, "ghost.yaml")}:3: node ${node}: component "nope" is not registered (known: caller, needy, pulse, relay, strict, thrower, typo)`,
    ]);
  });
});

describe("local mode says what was fixed", () => {
  test("fixing a manifest error that uncovers a settings error says one problem is left, after the new error", async () => {
    const dir = tempDir();
    const good = flow({ needy: { component: "needy", settings: { name: 7 } } });
    writeFlow(dir, good);
    const file = join(dir, "needy.yaml");
    const text = await Bun.file(file).text();
    writeFileSync(file, text.replace("  component: needy\n", ""));
    const lines: string[] = [];
    const host = await start(dir, lines, { moduleName: "mod" });
    expect(lines.filter((l) => l.startsWith("error: "))).toHaveLength(1); // spec.component missing
    const before = lines.length;
    writeFileSync(file, text);
    await host.reloadManifests();
    const node = nodeNameOf(good, "needy");
    const after = lines.slice(before);
    expect(after.map((l) => l.replace(/:.*?(\(\d+ problems? left\)|\(no problems left\))$/, ": … $1"))).toEqual([
      `node ${node}  needy  error: ${file}:3: port _settings: field $.name breaks rule "type": $.name must be a string, got number 7`,
      "fixed: … (1 problem left)",
    ]);
  });

  test("a fixed component file is announced as that file fixed, not as 'manifests'", async () => {
    const dir = tempDir();
    const cdir = tempDir();
    const sdk = resolve(import.meta.dir, "../../../src/sdk/index.ts");
    writeFileSync(join(cdir, "broken.ts"), "export default {{ not typescript");
    const lines: string[] = [];
    const host = await LocalHost.start({ dir, componentsDir: cdir, watch: false, resyncMs: 0, statePath: null, report: (l) => lines.push(l) });
    hosts.push(host);
    expect(lines.filter((l) => l.startsWith("error: ") && l.includes("broken.ts"))).toHaveLength(1);
    writeFileSync(
      join(cdir, "broken.ts"),
      `import { defineComponent, target, Type } from ${JSON.stringify(sdk)};\nexport default defineComponent({ info: { name: "fine", description: "d", info: "i" }, ports: () => [target("in", Type.Unknown(), { default: null })], handle: () => undefined });\n`,
    );
    await host.reloadComponent(join(cdir, "broken.ts"));
    const fixed = lines.filter((l) => l.startsWith("fixed: "));
    expect(fixed).toHaveLength(1);
    expect(fixed[0]).toContain("broken.ts");
    expect(fixed[0]).toEndWith("(no problems left)");
    expect(lines.some((l) => l.includes("manifests: all errors fixed"))).toBe(false);
  });
});

describe("one local-mode process per state file", () => {
  test("a second host on the same state file is refused naming the pid; after stop the next one starts", async () => {
    const dir = tempDir();
    writeFlow(dir, flow({ relay: { component: "relay" } }));
    const first = await start(dir, [], { statePath: undefined });
    let err: unknown;
    try {
      await start(dir, [], { statePath: undefined });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(StateLockedError);
    expect((err as Error).message).toContain(`in use by another tinyhost (pid ${process.pid})`);
    expect((err as Error).message).toContain("--state <file>");
    await first.stop();
    const lines: string[] = [];
    await start(dir, lines, { statePath: undefined });
    expect(lines.some((l) => l.startsWith("state: took over"))).toBe(false); // released cleanly, nothing stale
  });

  test("--state <file> gives a second host its own state and lock", async () => {
    const dir = tempDir();
    writeFlow(dir, flow({ relay: { component: "relay" } }));
    await start(dir, [], { statePath: undefined });
    const other = await start(dir, [], { statePath: join(tempDir(), "mine.json") });
    expect(other.statePath).toEndWith("mine.json");
  });
});
