import { describe, expect, test } from "bun:test";
import { chainHandler, chainTracer, type HopMiddleware } from "../../../src/runtime/scheduler/middleware.ts";
import { Scheduler } from "../../../src/runtime/scheduler/scheduler.ts";
import { noopTracer, type Tracer } from "../../../src/runtime/runner/tracer.ts";
import { fail, ok, type Result } from "../../../src/core/result.ts";
import type { Msg, MsgHandler } from "../../../src/core/hop.ts";

const msg: Msg = { edgeId: "", from: "", to: "h.m.c-1:in", data: {}, depth: 0 };

/** A middleware that logs `name` on the way in and out of the handler and the tracer. */
function named(name: string, seen: string[]): HopMiddleware {
  return {
    handler: (next: MsgHandler) => async (m, s) => {
      seen.push(`${name}>`);
      const r = await next(m, s);
      seen.push(`<${name}`);
      return r;
    },
    tracer: (next: Tracer): Tracer => ({ ...next, input: (site, port, m) => (seen.push(`span ${name}`), next.input(site, port, m)) }),
  };
}

describe("hop middleware", () => {
  test("the first middleware is the outermost, for handlers and tracers alike", async () => {
    const seen: string[] = [];
    const handle = chainHandler(async () => (seen.push("inner"), ok(1)), [named("a", seen), named("b", seen)]);
    expect(await handle(msg)).toEqual(ok(1));
    expect(seen).toEqual(["a>", "b>", "inner", "<b", "<a"]);
    seen.length = 0;
    chainTracer(noopTracer, [named("a", seen), {}, named("b", seen)]).input(
      { name: "n", identity: { nodeName: "n", namespace: "", flowName: "", projectName: "" }, credentialKeys: () => new Set() },
      "in",
      msg,
    );
    expect(seen).toEqual(["span a", "span b"]);
  });

  test("no middleware leaves the handler and tracer as they are", () => {
    const inner: MsgHandler = async () => ok(1);
    expect(chainHandler(inner)).toBe(inner);
    expect(chainTracer(noopTracer, [{}])).toBe(noopTracer);
  });

  test("the scheduler's entry for outside hops goes through the middleware's handler, and its runners get the wrapped tracer", async () => {
    const refusing: HopMiddleware = {
      handler:
        () =>
        async (m): Promise<Result> =>
          fail(new Error(`refused ${m.to}`)),
    };
    const marker: Tracer = { ...noopTracer };
    const s = new Scheduler({ module: "m", tracer: noopTracer, middleware: [refusing, { tracer: () => marker }] });
    const r = await s.handle(msg);
    expect(r.kind === "fail" && r.error.message).toBe("refused h.m.c-1:in");
    expect(s.tracer).toBe(marker);
  });
});
