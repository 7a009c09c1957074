import { describe, expect, test } from "bun:test";
import { defineComponent, Type, target, source, type Emitter, type State, type TinyNode } from "tinyhost";
import { Scheduler } from "../../../src/runtime/scheduler/index.ts";
import { STATE_MAX_BYTES, type StatusSink } from "../../../src/runtime/runner/index.ts";
import { makeNode, MODULE, nodeName } from "../../support/fake-components.ts";

process.env.TINYHOST_LOG_LEVEL ??= "silent";

/** Records every hook value; onSettings throws for a negative level. */
function settingsComponent(seen: number[]) {
  return defineComponent({
    info: { name: "settingsful", description: "S", info: "" },
    ports: () => [target("_settings", Type.Object({ level: Type.Number() }), { default: { level: 0 } })],
    onSettings(_ctx, s) {
      seen.push(s.level);
      if (s.level < 0) throw new Error(`level ${s.level} is negative`);
    },
    handle: () => {},
  });
}

const withSettings = (level: number) => makeNode("s", "settingsful", { ports: [{ from: "", port: "_settings", config: { level } }] });

/** Keeps the emitter and state the runtime hands over. */
function keeper() {
  const kept: { emit?: Emitter; state?: State } = {};
  const def = defineComponent({
    info: { name: "keeper", description: "K", info: "" },
    state: () => ({ mode: "a" }),
    ports: (self) => [
      target("in", Type.Any()),
      source(self.mode === "a" ? "zeta" : "alpha", Type.Object({ token: Type.String() }), { default: { token: "s3cret" } }),
    ],
    onEmitter: (_c, emit) => void (kept.emit = emit),
    onState: (_c, state) => void (kept.state = state),
    handle: () => {},
  });
  return { def, kept };
}

function recordingSink(live: TinyNode) {
  const patches: number[] = [];
  const sink: StatusSink = {
    async patchStatus(_name, mutate) {
      patches.push(Date.now());
      mutate(live);
    },
  };
  return { sink, patches };
}

describe("runner", () => {
  test("identical settings are delivered once", async () => {
    const seen: number[] = [];
    const s = new Scheduler({ module: MODULE });
    s.install(settingsComponent(seen));
    await s.update(withSettings(3));
    await s.update(withSettings(3));
    expect(seen).toEqual([3]);
  });

  test("failed settings are delivered again on the next identical reconcile and keep reporting the error", async () => {
    const seen: number[] = [];
    const s = new Scheduler({ module: MODULE });
    s.install(settingsComponent(seen));
    const first = await s.update(withSettings(-1));
    const second = await s.update(withSettings(-1));
    expect(seen).toEqual([-1, -1]);
    expect(first.error).toBe(true);
    expect(second.error).toBe(true);
    expect(second.status).toBe("node h.testmod.s (component settingsful) failed in onSettings: level -1 is negative"); // issue 21: node, component and site named
  });

  test("state set/get round-trips through node metadata as base64 under _state/", async () => {
    const { def, kept } = keeper();
    const s = new Scheduler({ module: MODULE, debounceMs: 5 });
    s.install(def);
    await s.update(makeNode("k", "keeper"));
    await kept.state!.set("greeting", "héllo");
    expect(new TextDecoder().decode(await kept.state!.get("greeting"))).toBe("héllo");
    await Bun.sleep(30);
    const metadata = s.runner(nodeName("k"))!.node.status!.metadata!;
    expect(metadata["_state/greeting"]).toBe(Buffer.from("héllo").toString("base64"));
    expect(await kept.state!.list("gr")).toEqual(["greeting"]);
    await kept.state!.delete("greeting");
    expect(await kept.state!.get("greeting")).toBeUndefined();
  });

  test("state over 900 KiB is rejected with an error naming the sizes", async () => {
    const { def, kept } = keeper();
    const s = new Scheduler({ module: MODULE, debounceMs: 5 });
    s.install(def);
    await s.update(makeNode("k", "keeper"));
    const err = await kept.state!.set("big", new Uint8Array(STATE_MAX_BYTES)).catch((e: unknown) => e);
    expect((err as { code?: string }).code).toBe("STATE_TOO_LARGE");
    expect((err as Error).message).toContain(String(STATE_MAX_BYTES));
  });

  test("the debouncer batches updaters emitted within one window into one status patch", async () => {
    const { def, kept } = keeper();
    const live = makeNode("k", "keeper");
    const { sink, patches } = recordingSink(live);
    const s = new Scheduler({ module: MODULE, debounceMs: 30, statusSink: sink });
    s.install(def);
    await s.update(makeNode("k", "keeper"));
    await kept.emit!("_reconcile", (n: TinyNode) => void (n.status!.metadata!.one = "1"));
    await kept.emit!("_reconcile", (n: TinyNode) => void (n.status!.metadata!.two = "2"));
    await kept.emit!("_control");
    await Bun.sleep(80);
    expect(patches.length).toBe(1);
    expect(live.status!.metadata).toMatchObject({ one: "1", two: "2" });
  });

  test("readStatus lists ports sorted by name with base64 schema and masked configuration", async () => {
    const { def } = keeper();
    const s = new Scheduler({ module: MODULE });
    s.install(def);
    await s.update(makeNode("k", "keeper"));
    const st = s.readStatus(nodeName("k"))!;
    expect(st.ports!.map((p) => p.name)).toEqual(["in", "zeta"]);
    const zeta = st.ports![1]!;
    expect(JSON.parse(Buffer.from(zeta.configuration, "base64").toString())).toEqual({ token: "<redacted>" });
    expect(JSON.parse(Buffer.from(zeta.schema, "base64").toString())).toHaveProperty("$defs");
    expect(zeta.position).toBe(1);
    expect(st.status).toBe("OK");
    expect(st.component).toEqual({ description: "K", info: "", tags: [] });
  });

  test("a _control emit refreshes the ports", async () => {
    const { def, kept } = keeper();
    const s = new Scheduler({ module: MODULE, debounceMs: 5 });
    s.install(def);
    await s.update(makeNode("k", "keeper"));
    const runner = s.runner(nodeName("k"))!;
    expect(runner.hasPort("zeta")).toBe(true);
    (runner.instance.self as { mode: string }).mode = "b";
    await kept.emit!("_control");
    expect(runner.hasPort("alpha")).toBe(true);
    expect(runner.hasPort("zeta")).toBe(false);
  });
});
