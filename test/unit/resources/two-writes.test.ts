import { describe, expect, test } from "bun:test";
import { PartialWriteError, writeBoth } from "../../../src/k8s/resources/index.ts";
import pino from "pino";

const log = pino({ level: "silent" });

describe("writeBoth", () => {
  test("runs the first write, then the second", async () => {
    const calls: string[] = [];
    await writeBoth({
      operation: "op",
      firstObject: "A",
      first: async () => (calls.push("first"), { changed: true }),
      second: async () => calls.push("second"),
      undoFirst: async () => calls.push("undo"),
      log,
    });
    expect(calls).toEqual(["first", "second"]);
  });

  test("a failing second write undoes the first and rethrows the second's error", async () => {
    const calls: string[] = [];
    const boom = new Error("second failed");
    const err = await writeBoth({
      operation: "op",
      firstObject: "A",
      first: async () => (calls.push("first"), { changed: true, token: 7 }),
      second: async () => {
        throw boom;
      },
      undoFirst: async (done) => calls.push(`undo ${done.token}`),
      log,
    }).catch((e: unknown) => e);
    expect(err).toBe(boom);
    expect(calls).toEqual(["first", "undo 7"]);
  });

  test("nothing is undone when the first write changed nothing", async () => {
    let undone = false;
    const err = await writeBoth({
      operation: "op",
      firstObject: "A",
      first: async () => ({ changed: false }),
      second: async () => Promise.reject(new Error("x")),
      undoFirst: async () => (undone = true),
      log,
    }).catch((e: unknown) => e);
    expect((err as Error).message).toBe("x");
    expect(undone).toBe(false);
  });

  test("a failing undo is a PartialWriteError naming the operation, the object and both failures", async () => {
    const err = await writeBoth({
      operation: "exposePort(8080)",
      firstObject: "Service ns/s",
      first: async () => ({ changed: true }),
      second: async () => Promise.reject(new Error("ingress forbidden")),
      undoFirst: async () => Promise.reject(new Error("service unavailable")),
      log,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PartialWriteError);
    expect((err as PartialWriteError).code).toBe("PARTIAL_WRITE");
    expect((err as Error).message).toContain(
      "exposePort(8080) failed half-way: ingress forbidden; undoing its change of Service ns/s failed too: service unavailable",
    );
    expect(((err as Error).cause as Error).message).toBe("ingress forbidden");
  });
});
