/**
 * The process-level last resort (src/cli/last-resort.ts): an error no guard caught is logged with
 * the node or the component frame it came from, counted, and does not end the process.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { attribute, installLastResort } from "../../../src/cli/last-resort.ts";
import { ComponentFaultError, componentFaults } from "../../../src/runtime/runner/guard.ts";

const lines: { obj: Record<string, unknown>; msg: string }[] = [];
const log = {
  debug() {},
  info() {},
  warn() {},
  error(obj: object | string, msg?: string) {
    lines.push({ obj: obj as Record<string, unknown>, msg: msg ?? "" });
  },
};

let remove: (() => void) | undefined;
afterEach(() => {
  remove?.();
  remove = undefined;
  lines.length = 0;
});

describe("last resort", () => {
  test("attribute names the node an error carries and the first frame outside tinyhost's src/", () => {
    const err = new ComponentFaultError("a.mod.x-1", "x", "timer", new Error("boom"));
    expect(attribute(err).node).toBe("a.mod.x-1");
    const fromHere = new Error("here"); // thrown in test/unit: outside src/
    expect(attribute(fromHere).at).toContain("test/unit/cli/last-resort.test.ts:");
    expect(attribute("a string")).toEqual({});
  });

  test("frames of the runtime are skipped: an error made inside src/ is attributed to the caller's file", () => {
    const inRuntime = new ComponentFaultError("n", "c", "task", "x"); // constructed in src/, stack starts there
    expect(attribute(inRuntime).at).toContain("last-resort.test.ts:");
  });

  test("an uncaught exception and an unhandled rejection are logged, counted, and leave the process running", () => {
    remove = installLastResort(log);
    const before = componentFaults.uncaught;
    process.emit("uncaughtException", new Error("timer threw"), "uncaughtException");
    process.emit("unhandledRejection", new Error("forgotten"), Promise.resolve());
    expect(componentFaults.uncaught).toBe(before + 2);
    expect(lines.map((l) => l.obj.kind)).toEqual(["uncaught exception", "unhandled rejection"]);
    expect(lines[0]!.obj.err).toBe("timer threw"); // the text in `err` only: the terminal line prints `<msg>: <err>`
    expect(String(lines[1]!.obj.at)).toContain("last-resort.test.ts");
  });

  test("the returned function takes the handlers off process again", () => {
    installLastResort(log)();
    const listeners = process.listeners("uncaughtException").length;
    remove = installLastResort(log);
    expect(process.listeners("uncaughtException").length).toBe(listeners + 1);
    remove();
    remove = undefined;
    expect(process.listeners("uncaughtException").length).toBe(listeners);
  });
});
