/**
 * Keys of a port configuration that the port's type does not declare are dropped when decoded, as
 * in Go; like Go's runner (`findOrphanedKeys`) the node logs them — once per configuration here —
 * naming each unknown key and the keys the port has.
 */
import { describe, expect, test } from "bun:test";
import ticker from "../../../components/ticker.ts";
import { orphanedKeys } from "../../../src/runtime/runner/orphaned-keys.ts";
import { Scheduler } from "../../../src/runtime/scheduler/index.ts";
import { makeNode, MODULE, relay } from "../../support/fake-components.ts";

process.env.TINYHOST_LOG_LEVEL ??= "silent";

function recordingLog() {
  const warnings: { obj: Record<string, unknown>; msg?: string }[] = [];
  const log = {
    debug() {},
    info() {},
    error() {},
    warn(obj: object | string, msg?: string) {
      if (typeof obj === "object") warnings.push({ obj: obj as Record<string, unknown>, msg });
    },
    child() {
      return log;
    },
  };
  return { log, warnings };
}

describe("undeclared configuration keys", () => {
  test("a misspelt ticker setting is logged naming it and the known keys; the decode still drops it (Go)", async () => {
    const { log, warnings } = recordingLog();
    const s = new Scheduler({ module: MODULE, debounceMs: 10, log });
    s.install(ticker);
    const node = makeNode("t", "ticker", { ports: [{ from: "", port: "_settings", config: { period: 1000, context: "t" } }] });
    await s.update(node);
    const w = warnings.filter((x) => (x.msg ?? "").includes("does not declare"));
    expect(w).toHaveLength(1);
    expect(w[0]!.msg).toBe('configuration of port _settings has keys the port does not declare, dropped when decoded: "period" (known: context, delay)');
    expect(w[0]!.obj).toMatchObject({ port: "_settings", orphanedKeys: ["period"] });
    // The same configuration again (a reconcile) is not logged again.
    await s.update({ ...node, metadata: { ...node.metadata, generation: 2 } });
    expect(warnings.filter((x) => (x.msg ?? "").includes("does not declare"))).toHaveLength(1);
    await s.stopAll();
  });

  test("declared keys, nested keys and maps", () => {
    const schema = {
      type: "object",
      properties: { a: { type: "object", properties: { b: { type: "integer" } } }, m: { type: "object", additionalProperties: { type: "string" } } },
    };
    expect(orphanedKeys({ a: { b: 1 }, m: { anything: "x" } }, schema)).toEqual([]);
    expect(orphanedKeys({ a: { b: 1, c: 2 }, z: 1 }, schema)).toEqual([
      { path: "a.c", known: ["b"] },
      { path: "z", known: ["a", "m"] },
    ]);
    expect(orphanedKeys({ A: { B: 1, c: 2 } }, schema)).toEqual([{ path: "A.c", known: ["b"] }]); // case-folded as the decode matches
    expect(orphanedKeys("text", schema)).toEqual([]);
    expect(orphanedKeys({ x: 1 }, { type: "object" })).toEqual([]);
  });

  test("an edge configuration with a key the target port lacks is logged once", async () => {
    const { log, warnings } = recordingLog();
    const s = new Scheduler({ module: MODULE, debounceMs: 10, log });
    s.install(relay);
    await s.update(makeNode("r", "relay", { ports: [{ from: "src:out", port: "in", config: { context: "{{$}}", contxt: 1 } }] }));
    const hop = () => s.handle({ edgeId: "e", from: `h.${MODULE}.src:out`, to: `h.${MODULE}.r:in`, data: new TextEncoder().encode("1"), depth: 1 });
    await hop();
    await hop();
    const w = warnings.filter((x) => (x.msg ?? "").includes("does not declare"));
    expect(w.map((x) => x.obj.orphanedKeys)).toEqual([["contxt"]]);
  });
});
