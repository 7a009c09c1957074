// fulfilledValue (src/core/settled.ts): what the runner and the HTTP listener may read without
// waiting a microtask — only a native promise that has already fulfilled.
import { describe, expect, test } from "bun:test";
import { fulfilledValue, NOT_FULFILLED, rejectedNow } from "../../../src/core/settled.ts";

describe("fulfilledValue", () => {
  test("a fulfilled promise gives its value, undefined and null included", () => {
    expect(fulfilledValue(Promise.resolve(7))).toBe(7);
    expect(fulfilledValue(Promise.resolve(undefined))).toBeUndefined();
    expect(fulfilledValue(Promise.resolve(null))).toBeNull();
  });

  test("a pending promise is not fulfilled, and is read once it is", async () => {
    const { promise, resolve } = Promise.withResolvers<string>();
    expect(fulfilledValue(promise)).toBe(NOT_FULFILLED);
    resolve("later");
    await promise;
    expect(fulfilledValue(promise)).toBe("later");
  });

  test("a rejected promise is not fulfilled (its rejection stays for the caller's handler)", async () => {
    const p = Promise.reject(new Error("no"));
    expect(fulfilledValue(p)).toBe(NOT_FULFILLED);
    expect(await p.catch((e: Error) => e.message)).toBe("no");
  });

  test("a thenable that is not a native promise is never read (its then may run code)", () => {
    let called = false;
    const thenable = { then: (r: (v: number) => void) => ((called = true), r(1)) } as PromiseLike<number>;
    expect(fulfilledValue(thenable)).toBe(NOT_FULFILLED);
    expect(called).toBe(false);
  });
});

describe("rejectedNow", () => {
  test("an already rejected promise gives its reason at once", () => {
    const err = new Error("too large");
    expect(rejectedNow(Promise.reject(err))).toEqual({ reason: err });
  });

  test("a pending or fulfilled promise gives undefined", () => {
    expect(rejectedNow(Promise.withResolvers<void>().promise)).toBeUndefined();
    expect(rejectedNow(Promise.resolve(1))).toBeUndefined();
  });

  test("a state set over the 900 KiB cap is refused at once; one that fits is pending until its write", async () => {
    const { MetadataState } = await import("../../../src/runtime/runner/metadata-state.ts");
    const state = new MetadataState({ nodeName: "n", metadata: () => ({}), requestWrite: () => {} });
    const refused = rejectedNow(state.set("big", "x".repeat(700 * 1024)));
    expect((refused?.reason as { code?: string }).code).toBe("STATE_TOO_LARGE");
    expect(rejectedNow(state.set("small", "x"))).toBeUndefined();
    expect(await state.get("big")).toBeUndefined();
  });
});
