import { describe, expect, test } from "bun:test";
import { ok, testComponent, type ComponentHarness } from "tinyhost";
import asyncComponent from "../../../components/async.ts";
import { until as poll } from "../../support/until.ts";

process.env.TINYHOST_LOG_LEVEL ??= "silent";

/** This file's timeout and poll interval. */
const until = (what: string, check: () => boolean) => poll(what, check, 3000, 1);

/** Makes the downstream of `out` block until `release()`; `calls` counts arrivals. */
function blockingDownstream(h: ComponentHarness) {
  const gate = Promise.withResolvers<void>();
  const state = { calls: 0, finished: 0, release: () => gate.resolve() };
  h.respond("out", async () => {
    const n = ++state.calls;
    await gate.promise;
    state.finished++;
    return ok(`reply ${n}`);
  });
  return state;
}

describe("async ports", () => {
  test("declares _settings (top), in (left) and out (right) with Go's labels and defaults", () => {
    expect(asyncComponent.ports().map((p) => [p.name, p.label, p.source, p.position, p.configuration])).toEqual([
      ["_settings", "Settings", false, "top", { maxConcurrency: 100 }],
      ["in", "In", false, "left", { context: null }],
      ["out", "Out", true, "right", { context: null }],
    ]);
    const input = JSON.parse(JSON.stringify(asyncComponent.ports()[1]!.schema));
    expect(input.required).toEqual(["context"]);
    expect(input.properties.context.configurable).toBe(true);
  });
});

describe("async", () => {
  test("returns an empty result before the downstream finishes, and the downstream still gets {context}", async () => {
    const h = await testComponent(asyncComponent);
    const down = blockingDownstream(h);
    const r = await h.send("in", { context: { id: 1 } });
    expect(r).toEqual({ kind: "empty" });
    await until("the background emit", () => down.calls === 1);
    expect(down.finished).toBe(0);
    expect(h.emitted).toEqual([{ port: "out", data: { context: { id: 1 } } }]);
    down.release();
    await until("the downstream to finish", () => down.finished === 1);
  });

  test("the background emit does not inherit the caller's cancellation", async () => {
    const h = await testComponent(asyncComponent);
    h.respond("out", () => ok(null));
    const caller = new AbortController();
    caller.abort(new Error("caller left")); // an emit on the caller's hop would be refused now
    const r = await h.send("in", { context: 1 }, caller.signal);
    expect(r).toEqual({ kind: "empty" });
    await until("the background emit", () => h.emitted.length === 1);
  });

  test("when every slot is busy it emits synchronously and returns the downstream result", async () => {
    const h = await testComponent(asyncComponent, { settings: { maxConcurrency: 1 } });
    const down = blockingDownstream(h);
    expect(await h.send("in", { context: "first" })).toEqual({ kind: "empty" });
    await until("the first emit", () => down.calls === 1);
    const second = h.send("in", { context: "second" });
    await until("the second emit", () => down.calls === 2);
    down.release();
    expect(await second).toEqual({ kind: "ok", value: "reply 2" });
  });

  test("maxConcurrency 0 means 100 slots", async () => {
    const h = await testComponent(asyncComponent, { settings: { maxConcurrency: 0 } });
    const down = blockingDownstream(h);
    const results = await Promise.all(Array.from({ length: 100 }, (_, i) => h.send("in", { context: i })));
    expect(results.every((r) => r.kind === "empty")).toBe(true);
    await until("100 background emits", () => down.calls === 100);
    const overflow = h.send("in", { context: "overflow" });
    await until("the synchronous emit", () => down.calls === 101);
    down.release();
    expect(await overflow).toEqual({ kind: "ok", value: "reply 101" });
  });

  test("a finished background emit frees its slot", async () => {
    const h = await testComponent(asyncComponent, { settings: { maxConcurrency: 1 } });
    h.respond("out", () => ok("done"));
    expect(await h.send("in", { context: 1 })).toEqual({ kind: "empty" });
    await until("the first emit", () => h.emitted.length === 1);
    await Bun.sleep(1);
    expect(await h.send("in", { context: 2 })).toEqual({ kind: "empty" });
  });
});
