import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { defineComponent, source, target, TinyError, Type, type State } from "tinyhost";
import { LocalHost, type LocalHostOptions } from "../../../src/local/host.ts";
import { shownPath } from "../../../src/telemetry/shown-path.ts";
import { nodeNameOf, renderFlowFiles, type FlowDescription } from "../../../src/cli/scaffold/flow-builder.ts";
import { LEGACY_STATE_FILE_NAME, STATE_FILE_NAME } from "../../../src/local/state-file.ts";
import { NODE_FINALIZER } from "../../../src/core/api/index.ts";
import { SDK_VERSION } from "../../../src/core/version.ts";
import { until as poll } from "../../support/until.ts";

/** Every hook call and sink message, in order. */
const journal: string[] = [];

const tally = defineComponent({
  info: { name: "tally", description: "Tally", info: "counts in node state" },
  state: () => ({ state: undefined as State | undefined, step: 1 }),
  ports: () => [
    target("_settings", Type.Object({ step: Type.Integer() }), { default: { step: 1 } }),
    target("in", Type.Object({ context: Type.Unknown() }), { default: { context: null } }),
    source("out", Type.Object({ context: Type.Unknown(), count: Type.Integer() })),
  ],
  onState(ctx, s) {
    ctx.self.state = s;
  },
  onSettings(ctx, s) {
    ctx.self.step = s.step;
    journal.push(`settings:${ctx.node.nodeName}:${s.step}`);
  },
  onReconcile(ctx, node) {
    journal.push(`reconcile:${ctx.node.nodeName}:${node.status?.metadata?.["_state/count"] ?? "-"}`);
  },
  async handle(ctx, output, _port, data) {
    const raw = await ctx.self.state!.get("count");
    const n = (raw ? Number(new TextDecoder().decode(raw)) : 0) + ctx.self.step;
    await ctx.self.state!.set("count", String(n));
    return output("out", { context: data.context, count: n });
  },
});

const pulse = defineComponent({
  info: { name: "pulse", description: "Pulse", info: "emits once per control go" },
  state: () => ({ emit: undefined as undefined | ((p: string, d?: unknown) => Promise<unknown>) }),
  ports: () => [target("_control", Type.Object({ go: Type.Boolean() }), { default: { go: false } }), source("out", Type.Object({ n: Type.Integer() }))],
  onEmitter(ctx, emit) {
    ctx.self.emit = emit;
  },
  onControl(ctx, control) {
    if (control.go && ctx.isLeader) void ctx.self.emit!("out", { n: 1 });
  },
  handle: () => undefined,
});

const sink = defineComponent({
  info: { name: "sink", description: "Sink", info: "records what arrives" },
  ports: () => [target("in", Type.Unknown(), { default: null })],
  handle(ctx, _output, _port, data) {
    journal.push(`sink:${ctx.node.nodeName}:${JSON.stringify(data)}`);
  },
  onDestroy(ctx) {
    journal.push(`destroy:${ctx.node.nodeName}`);
  },
});

const fakeHttp = defineComponent({
  info: { name: "http_server", description: "fake", info: "records its port metadata" },
  ports: () => [target("start", Type.Unknown(), { default: null })],
  onReconcile(ctx, node) {
    journal.push(`port:${ctx.node.nodeName}:${node.status?.metadata?.port ?? "-"}`);
  },
  handle: () => undefined,
});

const FLOW: FlowDescription = {
  project: "p",
  flow: "f",
  module: "mod",
  nodes: {
    pulse: { component: "pulse", startSignal: { go: true } },
    tally: { component: "tally", settings: { step: 1 } },
    sink: { component: "sink" },
  },
  edges: [
    { from: "pulse:out", to: "tally:in", configuration: { context: "{{$.n}}" } },
    { from: "tally:out", to: "sink:in", configuration: { count: "{{$.count}}", ctx: "{{$.context}}" } },
  ],
};
const name = (key: string, desc = FLOW) => nodeNameOf(desc, key);

const hosts: LocalHost[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  journal.length = 0;
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "tinyhost-local-"));
  dirs.push(d);
  return d;
}

function writeFlow(dir: string, desc: FlowDescription): void {
  for (const f of renderFlowFiles(desc)) writeFileSync(join(dir, f.name), f.text);
}

function tempDirWithFlow(desc: FlowDescription): string {
  const dir = tempDir();
  writeFlow(dir, desc);
  return dir;
}

async function start(dir: string, extra: Partial<LocalHostOptions> = {}, lines: string[] = []): Promise<LocalHost> {
  const host = await LocalHost.start({
    dir,
    components: [tally, pulse, sink, fakeHttp],
    watch: false,
    debounceMs: 10,
    stateDebounceMs: 5,
    resyncMs: 0,
    removeGraceMs: 0,
    report: (l) => lines.push(l),
    ...extra,
  });
  hosts.push(host);
  return host;
}

/** This file's timeout and poll interval. */
const waitFor = (what: string, check: () => boolean, ms = 3000) => poll(() => `${what}; journal: ${journal.join(" | ")}`, check, ms);

describe("LocalHost", () => {
  test("runs the nodes of the manifests: the start signal flows along edges with their mappings", async () => {
    const dir = tempDir();
    writeFlow(dir, FLOW);
    const lines: string[] = [];
    const host = await start(dir, {}, lines);
    expect(host.module).toBe("mod");
    expect(host.scheduler.isLeader).toBe(true);
    await waitFor("the sink", () => journal.includes(`sink:${name("sink")}:{"count":1,"ctx":1}`));
    expect(host.status(name("tally"))!.status).toBe("OK");
    expect(lines.some((l) => l === `node ${name("sink")}  sink  OK`)).toBe(true);
  });

  test("the cluster's TinyNode reconciler runs the nodes: finalizer, module with sdkVersion, whole-second lastUpdateTime, observedGeneration", async () => {
    const dir = tempDir();
    writeFlow(dir, FLOW);
    const host = await start(dir, { moduleVersion: "1.2.3" });
    const node = host.nodes.find(name("tally"))!;
    expect(node.metadata.finalizers).toEqual([NODE_FINALIZER]);
    expect(node.status).toMatchObject({ module: { name: "mod", version: "1.2.3", sdkVersion: SDK_VERSION }, observedGeneration: 1, status: "OK" });
    expect(node.status).not.toHaveProperty("error"); // Go's omitempty: a false error is not written
    expect(node.status!.lastUpdateTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(node.status!.ports!.map((p) => p.name)).toEqual(["_settings", "in", "out"]);
  });

  test("the console seam: nodes and statuses come from the in-memory API; send delivers a message to a port and returns its Result", async () => {
    const dir = tempDir();
    writeFlow(dir, { ...FLOW, nodes: { ...FLOW.nodes, pulse: { component: "pulse" } } });
    const host = await start(dir, { statePath: null });
    expect(
      host.nodes
        .items()
        .map((n) => n.metadata.name)
        .sort(),
    ).toEqual([name("pulse"), name("sink"), name("tally")].sort());
    expect(host.status(name("sink"))!.status).toBe("OK");
    const r = await host.send(name("tally"), "in", { context: "from the console" });
    expect(r.kind).not.toBe("fail");
    expect(journal).toContain(`sink:${name("sink")}:{"count":1,"ctx":"from the console"}`);
  });

  test("the health server is a runnable of local mode too: /readyz 200 once started, /metrics with the controller's series", async () => {
    const dir = tempDir();
    writeFlow(dir, FLOW);
    const lines: string[] = [];
    const host = await start(dir, { statePath: null, healthProbeBindAddress: "127.0.0.1:0" }, lines);
    const url = lines
      .find((l) => l.startsWith("health: "))!
      .slice("health: ".length)
      .split("/healthz")[0]!;
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(metrics).toContain('controller_runtime_reconcile_total{controller="tinynode"}');
    expect(metrics).toContain("tinyhost_runners 3");
    // Memory held outside the JS heap by JS objects (docs/operations.md §8): a byte count, present.
    expect(Number(/^tinyhost_js_external_bytes (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(0);
    await host.stop();
    expect(
      await fetch(`${url}/healthz`).then(
        () => "answered",
        () => "closed",
      ),
    ).toBe("closed");
  });

  test("node metadata goes to the state file and a restart resumes from it", async () => {
    const dir = tempDir();
    writeFlow(dir, FLOW);
    const first = await start(dir);
    await waitFor("count 1", () => journal.some((j) => j.startsWith(`sink:${name("sink")}:{"count":1`)));
    await first.stop();
    const saved = JSON.parse(readFileSync(join(dir, STATE_FILE_NAME), "utf8"));
    expect(saved.nodes[name("tally")].status.metadata["_state/count"]).toBe(Buffer.from("1").toString("base64"));
    await start(dir);
    await waitFor("count 2 after restart", () => journal.some((j) => j.startsWith(`sink:${name("sink")}:{"count":2`)));
    expect(journal).toContain(`reconcile:${name("tally")}:${Buffer.from("1").toString("base64")}`);
  });

  test("the state file lives in <dir>/.tinyhost/state.json, not beside the manifests; an old <dir>/.tinyhost-state.json is moved there once", async () => {
    const dir = tempDir();
    writeFlow(dir, FLOW);
    const legacy = { version: 1, nodes: { [name("tally")]: { status: { metadata: { "_state/count": Buffer.from("41").toString("base64") } } } } };
    writeFileSync(join(dir, LEGACY_STATE_FILE_NAME), JSON.stringify(legacy));
    const lines: string[] = [];
    const host = await start(dir, {}, lines);
    expect(host.statePath).toBe(join(dir, ".tinyhost", "state.json"));
    expect(existsSync(join(dir, LEGACY_STATE_FILE_NAME))).toBe(false);
    expect(lines.some((l) => l.startsWith("state: moved ") && l.includes(LEGACY_STATE_FILE_NAME))).toBe(true);
    await waitFor("count 42 from the migrated state", () => journal.some((j) => j.startsWith(`sink:${name("sink")}:{"count":42`)));
    await host.stop();
    expect(readdirSync(dir).filter((f) => f.endsWith(".json"))).toEqual([]);
    const saved = JSON.parse(readFileSync(join(dir, ".tinyhost", "state.json"), "utf8"));
    expect(saved.nodes[name("tally")].status.metadata["_state/count"]).toBe(Buffer.from("42").toString("base64"));
  });

  const countOf = (host: LocalHost) => {
    const b64 = host.status(name("tally"))?.metadata?.["_state/count"];
    return b64 ? Number(Buffer.from(b64, "base64").toString()) : 0;
  };
  const bump = async (host: LocalHost, times = 1) => {
    for (let i = 0; i < times; i++) expect((await host.send(name("tally"), "in", { context: i })).kind).not.toBe("fail");
  };
  const tallyFile = (dir: string) => join(dir, readdirSync(dir).find((f) => f.startsWith("tally"))!);

  test("a truncate-then-write save (the file empty for a moment) neither removes nor restarts the node: its state goes on", async () => {
    const dir = tempDir();
    writeFlow(dir, FLOW);
    const lines: string[] = [];
    const host = await start(dir, { removeGraceMs: 500 }, lines);
    await bump(host, 3);
    await waitFor("count 4", () => countOf(host) === 4); // 1 from the pulse, 3 sent
    const runner = host.scheduler.runner(name("tally"));
    const file = tallyFile(dir);
    const text = readFileSync(file, "utf8");
    writeFileSync(file, ""); // the save truncates…
    expect((await host.reloadManifests()).removed).toEqual([]);
    expect(host.scheduler.runner(name("tally"))).toBe(runner);
    writeFileSync(file, text); // …and writes
    expect(await host.reloadManifests()).toEqual({ added: [], changed: [], removed: [] });
    await Bun.sleep(600); // past the grace: nothing is due any more
    expect(host.scheduler.runner(name("tally"))).toBe(runner);
    await bump(host);
    await waitFor("count 5", () => countOf(host) === 5);
    expect(lines.filter((l) => l.includes("removed"))).toEqual([]);
  });

  test("a node missing past the grace is removed by itself (no other file event needed)", async () => {
    const dir = tempDir();
    writeFlow(dir, FLOW);
    const lines: string[] = [];
    const host = await start(dir, { removeGraceMs: 100 }, lines);
    rmSync(join(dir, readdirSync(dir).find((f) => f.startsWith("sink"))!));
    expect((await host.reloadManifests()).removed).toEqual([]);
    expect(host.scheduler.runner(name("sink"))).toBeDefined();
    await waitFor("the removal", () => host.scheduler.runner(name("sink")) === undefined && journal.includes(`destroy:${name("sink")}`));
    expect(host.desired().has(name("sink"))).toBe(false);
  });

  test("a node removed and declared again with the same name resumes its state (git stash … git stash pop), also after a restart", async () => {
    const dir = tempDir();
    writeFlow(dir, FLOW);
    const lines: string[] = [];
    const host = await start(dir, {}, lines);
    await bump(host, 4);
    await waitFor("count 5", () => countOf(host) === 5);
    const file = tallyFile(dir);
    const text = readFileSync(file, "utf8");
    rmSync(file);
    expect((await host.reloadManifests()).removed).toEqual([name("tally")]);
    expect(host.status(name("tally"))).toBeUndefined();
    await host.stop();
    const saved = JSON.parse(readFileSync(join(dir, STATE_FILE_NAME), "utf8"));
    expect(typeof saved.nodes[name("tally")].removedAt).toBe("number");
    // Restarted while the file is still gone: the state stays kept.
    const second = await start(dir, {}, lines);
    await second.stop();
    expect(typeof JSON.parse(readFileSync(join(dir, STATE_FILE_NAME), "utf8")).nodes[name("tally")].removedAt).toBe("number");
    const third = await start(dir, {}, lines);
    writeFileSync(file, text);
    expect((await third.reloadManifests()).added).toEqual([name("tally")]);
    await waitFor("count 5 resumed", () => countOf(third) === 5);
    expect(lines.some((l) => l.startsWith(`state: node ${name("tally")} is back: it resumes the state it had when it was removed at `))).toBe(true);
    await bump(third);
    await waitFor("count 6", () => countOf(third) === 6);
  });

  test("a removed node's state is dropped after the keep period, with a line saying so", async () => {
    const dir = tempDir();
    writeFlow(dir, FLOW);
    const lines: string[] = [];
    const host = await start(dir, { keepRemovedStateMs: 100 }, lines);
    await waitFor("count 1", () => countOf(host) === 1);
    rmSync(tallyFile(dir));
    await host.reloadManifests();
    await waitFor("the drop line", () =>
      lines.some(
        (l) =>
          l.startsWith(`state: dropped the saved state of node ${name("tally")}: its manifest has been gone since `) &&
          l.endsWith("(a removed node's state is kept 100 ms)"),
      ),
    );
    await host.stop();
    expect(JSON.parse(readFileSync(join(dir, STATE_FILE_NAME), "utf8")).nodes[name("tally")]).toBeUndefined();
  });

  test("deleting <dir>/.tinyhost while running re-creates the lock, so a second host on the same state is refused", async () => {
    const dir = tempDir();
    writeFlow(dir, FLOW);
    const lines: string[] = [];
    const host = await start(dir, { lockCheckMs: 20 }, lines);
    await waitFor("count 1", () => host.status(name("tally"))?.metadata?.["_state/count"] !== undefined);
    rmSync(join(dir, ".tinyhost"), { recursive: true, force: true });
    await waitFor("the lock is back", () => existsSync(join(dir, ".tinyhost", "state.json.lock")));
    expect(readFileSync(join(dir, ".tinyhost", "state.json.lock"), "utf8")).toBe(`${process.pid}\n`);
    expect(lines.some((l) => l.startsWith("state: ") && l.includes("state.json.lock was deleted while this process runs; re-created it"))).toBe(true);
    let err: unknown;
    try {
      await LocalHost.start({ dir, components: [tally, pulse, sink, fakeHttp], watch: false, report: () => {} });
    } catch (e) {
      err = e;
    }
    expect((err as { code?: string } | undefined)?.code).toBe("STATE_LOCKED");
  });

  test("a missing manifests directory and a file given as one are told apart", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "README.md"), "# not manifests\n");
    const failure = (d: string) =>
      LocalHost.start({ dir: d, components: [], watch: false, report: () => {} }).then(
        () => "started",
        (e: Error) => e.message,
      );
    expect(await failure(join(dir, "nope"))).toBe(`manifests directory not found: ${shownPath(join(dir, "nope"))}`);
    expect(await failure(join(dir, "README.md"))).toStartWith(`${shownPath(join(dir, "README.md"))} is a file, not a directory`);
  });

  test("--state overrides the state file path and leaves an old <dir>/.tinyhost-state.json alone", async () => {
    const dir = tempDir();
    writeFlow(dir, FLOW);
    writeFileSync(join(dir, LEGACY_STATE_FILE_NAME), JSON.stringify({ version: 1, nodes: {} }));
    const file = join(tempDir(), "elsewhere.json");
    const host = await start(dir, { statePath: file });
    await waitFor("the sink", () => journal.some((j) => j.startsWith(`sink:${name("sink")}:{"count":1`)));
    await host.stop();
    expect(existsSync(file)).toBe(true);
    expect(existsSync(join(dir, LEGACY_STATE_FILE_NAME))).toBe(true);
    expect(existsSync(join(dir, ".tinyhost"))).toBe(false);
  });

  test("a status.metadata change reconciles the node again (cluster predicate)", async () => {
    const dir = tempDir();
    writeFlow(dir, FLOW);
    await start(dir, { statePath: null });
    await waitFor("reconcile with the new metadata", () => journal.includes(`reconcile:${name("tally")}:${Buffer.from("1").toString("base64")}`));
  });

  test("live edits: a changed node is updated, an added node created, a removed node destroyed with onDestroy", async () => {
    const dir = tempDir();
    const noSignal: FlowDescription = { ...FLOW, nodes: { ...FLOW.nodes, pulse: { component: "pulse" } } };
    writeFlow(dir, noSignal);
    const host = await start(dir);
    expect(journal).toContain(`settings:${name("tally")}:1`);

    writeFlow(dir, { ...noSignal, nodes: { ...noSignal.nodes, tally: { component: "tally", settings: { step: 5 } } } });
    expect(await host.reloadManifests()).toEqual({ added: [], changed: [name("tally")], removed: [] });
    expect(journal).toContain(`settings:${name("tally")}:5`);

    const extra: FlowDescription = { ...noSignal, nodes: { sink2: { component: "sink" } }, edges: [] };
    writeFlow(dir, extra);
    rmSync(join(dir, "00-flow.yaml"));
    writeFlow(dir, { ...noSignal, nodes: { ...noSignal.nodes, tally: { component: "tally", settings: { step: 5 } } } });
    const added = await host.reloadManifests();
    expect(added.added).toEqual([name("sink2", extra)]);
    expect(host.scheduler.runner(name("sink2", extra))).toBeDefined();

    rmSync(join(dir, "sink.yaml"));
    rmSync(join(dir, "sink2.yaml"));
    const removed = await host.reloadManifests();
    expect(removed.removed.sort()).toEqual([name("sink"), name("sink2", extra)].sort());
    expect(journal).toContain(`destroy:${name("sink")}`);
    expect(host.scheduler.runner(name("sink"))).toBeUndefined();
    await host.stop();
    // A removed node's state is kept, marked removed, for a node that comes back with its name.
    const saved = JSON.parse(readFileSync(join(dir, STATE_FILE_NAME), "utf8"));
    expect(typeof saved.nodes[name("sink")]?.removedAt).toBe("number");
    expect(saved.nodes[name("tally")]?.removedAt).toBeUndefined();
  });

  test("an unknown component is reported naming file, line and node; the other nodes keep running", async () => {
    const dir = tempDir();
    writeFlow(dir, { ...FLOW, nodes: { ...FLOW.nodes, ghost: { component: "nope" } } });
    const lines: string[] = [];
    const host = await start(dir, {}, lines);
    const file = join(dir, "ghost.yaml");
    expect(lines).toContain(
      `error: ${file}:3: node ${name("ghost", { ...FLOW, nodes: { ghost: { component: "nope" } } })}: component "nope" is not registered (known: http_server, pulse, sink, tally)`,
    );
    expect(host.status(name("ghost", { ...FLOW, nodes: { ghost: { component: "nope" } } }))!.error).toBe(true);
    await waitFor("the sink", () => journal.some((j) => j.startsWith(`sink:${name("sink")}`)));
  });

  test("a broken manifest file is reported with its line and its nodes keep running", async () => {
    const dir = tempDir();
    writeFlow(dir, FLOW);
    const lines: string[] = [];
    const host = await start(dir, {}, lines);
    writeFileSync(join(dir, "sink.yaml"), "apiVersion: operator.tinysystems.io/v1alpha1\nkind: TinyNode\nmetadata: {name: [\n");
    const diff = await host.reloadManifests();
    expect(diff).toEqual({ added: [], changed: [], removed: [] });
    expect(lines.some((l) => l.startsWith(`error: ${join(dir, "sink.yaml")}:`))).toBe(true);
    expect(host.scheduler.runner(name("sink"))).toBeDefined();
    writeFlow(dir, FLOW);
    await host.reloadManifests();
    expect(lines.filter((l) => l.startsWith("fixed: "))).toEqual([
      `fixed: ${join(dir, "sink.yaml")}:4:1: Flow sequence in block collection must be sufficiently indented and end with a ] (at the end of the file, after line 3: "metadata: {name: [") (no problems left)`,
    ]);
  });

  test("an alias bomb at start-up is reported naming its file and the other files' nodes run", async () => {
    const dir = tempDir();
    writeFlow(dir, FLOW);
    writeFileSync(
      join(dir, "bomb.yaml"),
      [
        "a: &a [x, x, x, x, x, x, x, x, x]",
        "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]",
        "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]",
        "d: [*c, *c, *c, *c, *c, *c, *c, *c, *c]",
        "",
      ].join("\n"),
    );
    const lines: string[] = [];
    await start(dir, {}, lines);
    expect(lines).toContain(`error: ${join(dir, "bomb.yaml")}:1: Excessive alias count indicates a resource exhaustion attack`);
    await waitFor("the sink", () => journal.some((j) => j.startsWith(`sink:${name("sink")}:{"count":1`)));
  });

  test("an empty manifests directory prints a one-line hint instead of running silently", async () => {
    const dir = tempDir();
    const lines: string[] = [];
    const host = await start(dir, {}, lines);
    expect(host.scheduler.nodes()).toEqual([]);
    expect(lines.filter((l) => l.startsWith("note: no "))).toEqual([`note: no TinyNode manifests in ${dir}`]);
  });

  test("--name matching no node prints which modules the nodes belong to", async () => {
    const dir = tempDir();
    writeFlow(dir, FLOW);
    writeFlow(dir, { ...FLOW, flow: "g", module: "other", nodes: { sink9: { component: "sink" } }, edges: [] });
    const lines: string[] = [];
    const host = await start(dir, { moduleName: "nope" }, lines);
    expect(host.scheduler.nodes()).toEqual([]);
    expect(lines.filter((l) => l.startsWith("note: no "))).toEqual([`note: no nodes for module nope in ${dir}: found nodes of modules [mod, other]`]);
  });

  test("no hint when some node belongs to the module", async () => {
    const dir = tempDir();
    writeFlow(dir, FLOW);
    const lines: string[] = [];
    await start(dir, {}, lines);
    expect(lines.filter((l) => l.startsWith("note: no "))).toEqual([]);
  });

  test("an http_server whose start fails to bind shows status error until its port listens; the other nodes keep running", async () => {
    const inUse = Object.assign(new Error("Failed to start server. Is port 8123 in use?"), { code: "EADDRINUSE" });
    const busyHttp = defineComponent({
      info: { name: "http_server", description: "fake", info: "fails to bind like http_server (ListenError code HTTP_LISTEN)" },
      ports: () => [target("_control", Type.Object({ go: Type.Boolean() }), { default: { go: false } })],
      onReconcile(ctx) {
        journal.push(`reconcile:${ctx.node.nodeName}`);
      },
      onControl() {
        throw new TinyError("HTTP_LISTEN", "http_server: cannot listen on :8123: Failed to start server. Is port 8123 in use?", { cause: inUse });
      },
      handle: () => undefined,
    });
    const desc: FlowDescription = { ...FLOW, nodes: { ...FLOW.nodes, web: { component: "http_server", startSignal: { go: true } } } };
    const dir = tempDir();
    writeFlow(dir, desc);
    const lines: string[] = [];
    const host = await start(dir, { components: [tally, pulse, sink, busyHttp], httpPort: 8123 }, lines);
    const web = name("web", desc);
    await waitFor("the listen failure", () => host.listenFailures().has(web));
    expect(host.listenFailures().get(web)).toMatchObject({ port: 8123, inUse: true });
    expect(host.status(web)).toMatchObject({ status: "http_server: cannot listen on :8123: Failed to start server. Is port 8123 in use?", error: true });
    // One line for the event: the node's status line, naming its file, with the advice.
    expect(lines.filter((l) => l.includes(web) && l.includes("8123"))).toEqual([
      `node ${web}  http_server  error: ${join(dir, "web.yaml")}:3: port 8123 is in use: set PORT or --port (the other nodes keep running)`,
    ]);
    // A later reconcile (the periodic requeue) gets "OK" from the runtime: the bind error stays.
    const reconciles = () => journal.filter((j) => j === `reconcile:${web}`).length;
    const before = reconciles();
    host.reconcileAll();
    await host.idle();
    expect(reconciles()).toBe(before + 1);
    expect(host.status(web)).toMatchObject({ status: "http_server: cannot listen on :8123: Failed to start server. Is port 8123 in use?", error: true });
    // A moved node (an annotation edit) is applied too, and changes nothing about it.
    writeFlow(dir, { ...desc, nodes: { ...desc.nodes, web: { component: "http_server", startSignal: { go: true }, position: [9, 9] } } });
    expect((await host.reloadManifests()).changed).toEqual([web]);
    expect(host.status(web)!.error).toBe(true);
    await waitFor("the sink", () => journal.some((j) => j.startsWith(`sink:${name("sink")}:{"count":1`)));

    await host.client.exposePort({ port: 8123 }); // what http_server does once it listens
    expect(host.listenFailures().size).toBe(0);
    expect(host.status(web)).toMatchObject({ status: "OK" });
    expect(host.status(web)?.error).toBeFalsy();
  });

  test("nodes whose name names another module are not run", async () => {
    const dir = tempDir();
    writeFlow(dir, FLOW);
    const other: FlowDescription = { ...FLOW, module: "other-module", nodes: { sink: { component: "sink" } }, edges: [] };
    for (const f of renderFlowFiles(other)) if (f.name !== "00-flow.yaml") writeFileSync(join(dir, `other-${f.name}`), f.text);
    const lines: string[] = [];
    const host = await start(dir, { moduleName: "mod" }, lines);
    expect(host.scheduler.runner(name("sink", other))).toBeUndefined();
    expect(lines.some((l) => l.includes(`node ${name("sink", other)} belongs to module other-module, not mod; not run here`))).toBe(true);
  });

  test("the first http_server node gets the HTTP port in its port metadata before its first reconcile", async () => {
    const dir = tempDir();
    const desc: FlowDescription = {
      ...FLOW,
      nodes: { a: { component: "http_server", suffix: "aaaaa" }, b: { component: "http_server", suffix: "bbbbb" } },
      edges: [],
    };
    writeFlow(dir, desc);
    await start(dir, { httpPort: 18080 });
    expect(journal).toContain(`port:${name("a", desc)}:18080`);
    expect(journal).toContain(`port:${name("b", desc)}:-`);
  });

  test("exposePort answers http://localhost:<port> and the URL is printed once", async () => {
    const dir = tempDir();
    const lines: string[] = [];
    const host = await start(dir, {}, lines);
    expect(await host.client.exposePort({ port: 8123, hostnames: ["x.example.com"] })).toEqual(["http://localhost:8123"]);
    expect(await host.client.exposePort({ port: 8123 })).toEqual(["http://localhost:8123"]);
    expect(lines.filter((l) => l === "listening on http://localhost:8123")).toHaveLength(1);
    expect(host.client.mode).toBe("local");
    expect(host.client.exposePort({ port: 70000 })).rejects.toThrow("invalid port 70000: must be an integer from 1 to 65535");
  });

  test("without --name the module is the nodes' spec.module", async () => {
    const dir = tempDir();
    writeFlow(dir, { ...FLOW, module: "tinysystems/demo-module" });
    const host = await start(dir);
    expect(host.module).toBe("tinysystems/demo-module");
    expect(host.scheduler.module).toBe("tinysystems-demo-module");
  });
});

describe("LocalHost components", () => {
  const sdk = resolve(import.meta.dir, "../../../src/sdk/index.ts");
  const componentSource = (description: string) => `import { defineComponent, target, Type } from ${JSON.stringify(sdk)};
export default defineComponent({
  info: { name: "greeter", description: ${JSON.stringify(description)}, info: "test" },
  ports: () => [target("in", Type.Unknown(), { default: null })],
  handle: () => undefined,
});
`;

  test("a changed component file is re-imported and its nodes recreated", async () => {
    const dir = tempDir();
    const cdir = tempDir();
    const file = join(cdir, "greeter.ts");
    writeFileSync(file, componentSource("v1"));
    const desc: FlowDescription = { project: "p", flow: "g", module: "mod", nodes: { g: { component: "greeter" } } };
    writeFlow(dir, desc);
    const lines: string[] = [];
    const host = await LocalHost.start({ dir, componentsDir: cdir, watch: false, debounceMs: 10, resyncMs: 0, statePath: null, report: (l) => lines.push(l) });
    hosts.push(host);
    const before = host.scheduler.runner(name("g", desc))!;
    expect(host.status(name("g", desc))!.component!.description).toBe("v1");
    writeFileSync(file, componentSource("v2"));
    expect(await host.reloadComponent(file)).toEqual([name("g", desc)]);
    expect(host.status(name("g", desc))!.component!.description).toBe("v2");
    expect(host.scheduler.runner(name("g", desc))).not.toBe(before);
    expect(before.stopped).toBe(true);
  });

  test("with preloaded components (the compiled binary) a --components directory is still watched and reloaded, and named at start-up", async () => {
    const dir = tempDir();
    const cdir = tempDir();
    const file = join(cdir, "greeter.ts");
    writeFileSync(file, componentSource("v1"));
    const desc: FlowDescription = { project: "p", flow: "g", module: "mod", nodes: { g: { component: "greeter" } } };
    writeFlow(dir, desc);
    const lines: string[] = [];
    const host = await LocalHost.start({
      dir,
      components: [tally, pulse],
      componentsDir: cdir,
      watch: true,
      watchDebounceMs: 20,
      debounceMs: 10,
      resyncMs: 0,
      statePath: null,
      report: (l) => lines.push(l),
    });
    hosts.push(host);
    expect(lines[0]).toContain(`components 2 bundled + 1 from ${shownPath(cdir)}`);
    expect(host.status(name("g", desc))!.component!.description).toBe("v1");
    await Bun.sleep(50); // the watch is open
    writeFileSync(file, componentSource("v2"));
    await waitFor("the reload", () => host.status(name("g", desc))?.component?.description === "v2");
    expect(lines.some((l) => l.startsWith(`reloaded ${shownPath(file)} (greeter): recreating 1 node`))).toBe(true);
  });

  const named = (componentName: string, description = "v1") =>
    componentSource(description).replace('name: "greeter"', `name: ${JSON.stringify(componentName)}`);
  const GREET: FlowDescription = { project: "p", flow: "g", module: "mod", nodes: { g: { component: "greeter" } } };
  const startIn = async (dir: string, cdir: string, lines: string[] = []) => {
    const host = await LocalHost.start({ dir, componentsDir: cdir, watch: false, debounceMs: 10, resyncMs: 0, statePath: null, report: (l) => lines.push(l) });
    hosts.push(host);
    return host;
  };

  test("renaming a component live removes the old name like a fresh start: its nodes stop and report it unregistered", async () => {
    const dir = tempDir();
    const cdir = tempDir();
    const file = join(cdir, "greeter.ts");
    writeFileSync(file, named("greeter"));
    writeFlow(dir, GREET);
    const node = name("g", GREET);
    const lines: string[] = [];
    const host = await startIn(dir, cdir, lines);
    const before = host.scheduler.runner(node)!;
    expect(host.status(node)!.status).toBe("OK");

    writeFileSync(file, named("greeter_v2"));
    await host.reloadComponent(file);
    await host.idle();
    expect(host.scheduler.installed("greeter")).toBeUndefined();
    expect(host.scheduler.installed("greeter_v2")).toBeDefined();
    expect(before.stopped).toBe(true);
    expect(host.scheduler.runner(node)).toBeUndefined();
    expect(host.status(node)).toMatchObject({ error: true, status: 'component "greeter" is not registered (known: greeter_v2)' });
    expect(lines).toContain(`component greeter is gone: ${shownPath(file)} now defines "greeter_v2"; stopped 1 node`);

    const fresh = await startIn(tempDirWithFlow(GREET), cdir);
    expect(fresh.status(node)).toMatchObject({ error: host.status(node)!.error, status: host.status(node)!.status });

    writeFileSync(file, named("greeter"));
    await host.reloadComponent(file);
    await host.idle();
    expect(host.scheduler.installed("greeter_v2")).toBeUndefined();
    expect(host.status(node)).toMatchObject({ status: "OK" });
    expect(host.status(node)?.error).toBeFalsy();
    expect(host.scheduler.runner(node)!.stopped).toBe(false);
  });

  test("deleting a component file removes its component; renaming the file keeps it", async () => {
    const dir = tempDir();
    const cdir = tempDir();
    writeFileSync(join(cdir, "a.ts"), named("greeter"));
    writeFlow(dir, GREET);
    const node = name("g", GREET);
    const host = await startIn(dir, cdir);
    // mv a.ts z.ts: the watcher reports both paths, sorted.
    renameSync(join(cdir, "a.ts"), join(cdir, "z.ts"));
    await host.reloadComponent(join(cdir, "a.ts"));
    await host.reloadComponent(join(cdir, "z.ts"));
    await host.idle();
    expect(host.status(node)).toMatchObject({ status: "OK" });
    expect(host.status(node)?.error).toBeFalsy();
    expect(host.scheduler.runner(node)!.stopped).toBe(false);
    rmSync(join(cdir, "z.ts"));
    await host.reloadComponent(join(cdir, "z.ts"));
    await host.idle();
    expect(host.scheduler.installed("greeter")).toBeUndefined();
    expect(host.scheduler.runner(node)).toBeUndefined();
    expect(host.status(node)).toMatchObject({ error: true, status: 'component "greeter" is not registered (known: none)' });
  });

  test("renaming to an invalid name reports the file, the value and the rule, and the old name goes", async () => {
    const dir = tempDir();
    const cdir = tempDir();
    const file = join(cdir, "greeter.ts");
    writeFileSync(file, named("greeter"));
    writeFlow(dir, GREET);
    const lines: string[] = [];
    const host = await startIn(dir, cdir, lines);
    writeFileSync(file, named("Bad Name!"));
    await host.reloadComponent(file);
    await host.idle();
    expect(
      lines.some(
        (l) => l.startsWith(`error: ${shownPath(file)}: defineComponent: info.name "Bad Name!" has upper-case letters`) && l.includes('joined by single "_"'),
      ),
    ).toBe(true);
    expect(host.scheduler.installed("greeter")).toBeUndefined();
    expect(host.status(name("g", GREET))!.status).toBe('component "greeter" is not registered (known: none)');
  });

  test("a file ignored as a duplicate takes over the name once the first file renames its component", async () => {
    const dir = tempDir();
    const cdir = tempDir();
    writeFileSync(join(cdir, "a.ts"), named("greeter", "from a"));
    writeFileSync(join(cdir, "b.ts"), named("greeter", "from b"));
    writeFlow(dir, GREET);
    const lines: string[] = [];
    const host = await startIn(dir, cdir, lines);
    const node = name("g", GREET);
    expect(host.status(node)!.component!.description).toBe("from a");
    expect(lines.some((l) => l.includes("defined twice") && l.includes("b.ts"))).toBe(true);
    writeFileSync(join(cdir, "a.ts"), named("other", "from a"));
    await host.reloadComponent(join(cdir, "a.ts"));
    await host.idle();
    expect(host.status(node)).toMatchObject({ status: "OK" });
    expect(host.status(node)?.error).toBeFalsy();
    expect(host.status(node)!.component!.description).toBe("from b");
    expect(host.scheduler.installed("other")).toBeDefined();
  });

  test("a component file that fails to import is reported; the other components load and the old version keeps running", async () => {
    const dir = tempDir();
    const cdir = tempDir();
    writeFileSync(join(cdir, "greeter.ts"), componentSource("v1"));
    writeFileSync(join(cdir, "broken.ts"), "export default {{ not typescript");
    const desc: FlowDescription = { project: "p", flow: "g", module: "mod", nodes: { g: { component: "greeter" } } };
    writeFlow(dir, desc);
    const lines: string[] = [];
    const host = await LocalHost.start({ dir, componentsDir: cdir, watch: false, debounceMs: 10, resyncMs: 0, statePath: null, report: (l) => lines.push(l) });
    hosts.push(host);
    expect(lines.some((l) => l.startsWith("error: ") && l.includes("broken.ts") && l.includes("import failed"))).toBe(true);
    expect(host.status(name("g", desc))!.status).toBe("OK");
    writeFileSync(join(cdir, "greeter.ts"), "export default {{ broken now");
    expect(await host.reloadComponent(join(cdir, "greeter.ts"))).toEqual([]);
    expect(lines.some((l) => l.includes("greeter.ts") && l.includes("import failed"))).toBe(true);
    expect(host.scheduler.runner(name("g", desc))!.stopped).toBe(false);
  });
});
