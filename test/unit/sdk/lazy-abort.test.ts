import { describe, expect, test } from "bun:test";
import { LazyAbort } from "tinyhost";
import { HopScope } from "../../../src/runtime/runner/scope.ts";

describe("LazyAbort", () => {
  test("a signal read before abort fires on abort with the reason", () => {
    const c = new LazyAbort();
    const signal = c.signal;
    let fired: unknown;
    signal.addEventListener("abort", () => (fired = signal.reason));
    expect(c.aborted).toBe(false);
    c.abort("stop");
    expect(c.aborted).toBe(true);
    expect(c.reason).toBe("stop");
    expect(fired).toBe("stop");
    expect(c.signal).toBe(signal);
  });

  test("a signal first read after abort is already aborted with the reason; a second abort changes nothing", () => {
    const c = new LazyAbort();
    const why = new Error("gone");
    c.abort(why);
    c.abort(new Error("later"));
    expect(c.signal.aborted).toBe(true);
    expect(c.signal.reason).toBe(why);
  });

  test("abort without a reason gives an AbortError, as AbortController does", () => {
    const c = new LazyAbort();
    c.abort();
    expect((c.reason as Error).name).toBe("AbortError");
    expect((c.signal.reason as Error).name).toBe("AbortError");
  });

  test("a hop scope sees it abort up the chain, and its combined signal follows it", () => {
    const c = new LazyAbort();
    const node = new AbortController();
    const scope = new HopScope(node.signal, "a:in", new HopScope(c, "", undefined));
    const combined = scope.toSignal();
    expect(scope.aborted).toBe(false);
    c.abort("client went away");
    expect(scope.aborted).toBe(true);
    expect(scope.reason).toBe("client went away");
    expect(combined.aborted).toBe(true);
  });
});
