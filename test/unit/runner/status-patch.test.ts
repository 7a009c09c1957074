import { describe, expect, test } from "bun:test";
import { applyStatusPatch, statusPatch } from "../../../src/runtime/runner/status-patch.ts";
import { nodeStatusPatch } from "../../../src/k8s/controllers/node-status.ts";

describe("status patch (Go's `error,omitempty`)", () => {
  test("a node without an error sends `error: null`, never `false`; an error sends `true`", () => {
    expect(statusPatch({ status: "OK", error: false })).toEqual({ status: "OK", error: null });
    const noField: { status: string; error?: boolean } = { status: "OK" };
    expect(statusPatch(noField)).toEqual({ status: "OK", error: null });
    expect(statusPatch({ status: "boom", error: true })).toEqual({ status: "boom", error: true });
  });

  test("applied, `null` removes a stored `error: true` and adds no field to a status without one", () => {
    const failed = applyStatusPatch({ status: "boom", error: true, metadata: { a: "1" } }, statusPatch({ status: "OK", error: false }));
    expect(failed).toEqual({ status: "OK", metadata: { a: "1" } });
    expect("error" in failed).toBe(false);
    const fresh = applyStatusPatch(undefined, statusPatch({ status: "OK", error: false }));
    expect(fresh).toEqual({ status: "OK" });
    expect("error" in fresh).toBe(false);
    expect(applyStatusPatch({ status: "OK" }, statusPatch({ status: "boom", error: true }))).toEqual({ status: "boom", error: true });
  });

  test("applying returns a new object and leaves the stored status as it was", () => {
    const stored = { status: "boom", error: true };
    applyStatusPatch(stored, { error: null });
    expect(stored).toEqual({ status: "boom", error: true });
  });

  test("the reconciler's patch is built by the same rule", () => {
    const owned = {
      module: { name: "m", version: "1", sdkVersion: "0" },
      component: { description: "", info: "" },
      ports: [],
      status: "OK",
      error: false,
      observedGeneration: 2,
    };
    const patch = nodeStatusPatch(owned, new Date("2026-01-02T03:04:05.678Z"));
    expect(patch.error).toBeNull();
    expect(patch.lastUpdateTime).toBe("2026-01-02T03:04:05Z");
    expect(nodeStatusPatch({ ...owned, error: true }, new Date()).error).toBe(true);
  });
});
