/**
 * A `_settings` message sent from outside (From `signal`, `tinyhost send … _settings`): Go's runner
 * unmarshals it into the settings type and calls OnSettings with it (internal/scheduler/runner
 * runner.go, `msg.From == FromSignal` branch, then dispatchCapability), so the component applies
 * it until the next reconcile re-delivers the node's own settings.
 */
import { describe, expect, test } from "bun:test";
import { defineComponent, target, Type } from "tinyhost";
import { Scheduler } from "../../../src/runtime/scheduler/index.ts";
import { FROM_SIGNAL } from "../../../src/core/hop.ts";
import { makeNode, MODULE, nodeName } from "../../support/fake-components.ts";

process.env.TINYHOST_LOG_LEVEL ??= "silent";

function settingsRecorder(seen: unknown[]) {
  return defineComponent({
    info: { name: "setrec", description: "S", info: "" },
    state: () => ({ step: 1 }),
    ports: (self) => [
      target("_settings", Type.Object({ step: Type.Optional(Type.Integer()) }), { default: { step: self.step } }),
      target("in", Type.Object({}), { default: {} }),
    ],
    onSettings(ctx, s) {
      ctx.self.step = s.step ?? 0;
      seen.push(s);
    },
    handle: () => undefined,
  });
}

describe("_settings sent from outside", () => {
  test("a signal on _settings reaches onSettings with the sent value, as Go's OnSettings", async () => {
    const seen: unknown[] = [];
    const s = new Scheduler({ module: MODULE });
    s.install(settingsRecorder(seen));
    await s.update(makeNode("n", "setrec", { ports: [{ from: "", port: "_settings", config: { step: 1 } }] }));
    expect(seen).toEqual([{ step: 1 }]);
    const r = await s.handle({ edgeId: "", from: FROM_SIGNAL, to: `${nodeName("n")}:_settings`, data: { step: 5 }, depth: 0 });
    expect(r.kind).not.toBe("fail");
    expect(seen).toEqual([{ step: 1 }, { step: 5 }]);
  });
});
