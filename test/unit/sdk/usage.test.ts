/**
 * `meter(ctx, unit, amount)` (Go module/usage.go, SDK v0.13.125): amounts summed per unit per hop,
 * written on the hop's input span as `tiny.usage.<unit>`, also when the hop fails; a no-op outside
 * a hop and for zero or negative amounts.
 */
import { describe, expect, test } from "bun:test";
import { defineComponent, fail, meter, target, Type, USAGE_ATTR_PREFIX } from "tinyhost";
import { Scheduler } from "../../../src/runtime/scheduler/index.ts";
import { noopSpan, type HopSpan, type Tracer } from "../../../src/runtime/runner/tracer.ts";
import { FROM_SIGNAL } from "../../../src/core/hop.ts";
import { makeNode, MODULE, nodeName } from "../../support/fake-components.ts";

process.env.TINYHOST_LOG_LEVEL ??= "silent";

/** A tracer whose input spans keep what `usage` was given, per port. */
function usageTracer(into: { port: string; usage: Record<string, number> }[]): Tracer {
  return {
    input: (_site, port): HopSpan => ({ ...noopSpan, usage: (t) => into.push({ port, usage: Object.fromEntries(t) }) }),
    output: () => noopSpan,
    active: noopSpan,
  };
}

const metered = defineComponent({
  info: { name: "metered", description: "M", info: "" },
  ports: () => [target("in", Type.Object({ n: Type.Number(), failIt: Type.Optional(Type.Boolean()) }), { default: { n: 0 } })],
  handle(ctx, _out, _port, d) {
    meter(ctx, "llm_input_tokens", d.n);
    meter(ctx, "llm_input_tokens", 5);
    meter(ctx, "llm_calls", 1);
    meter(ctx, "ignored", 0);
    meter(ctx, "ignored", -3);
    meter(ctx, "", 7);
    if (d.failIt) return fail(new Error("provider said no"));
    return undefined;
  },
});

async function send(s: Scheduler, data: unknown) {
  return s.handle({ edgeId: "", from: FROM_SIGNAL, to: `${nodeName("m")}:in`, data, depth: 0 });
}

describe("meter", () => {
  test("sums per unit per hop on the hop's span, each hop on its own; failed hops too", async () => {
    const seen: { port: string; usage: Record<string, number> }[] = [];
    const s = new Scheduler({ module: MODULE, tracer: usageTracer(seen) });
    s.install(metered);
    await s.update(makeNode("m", "metered"));
    await send(s, { n: 100 });
    const r = await send(s, { n: 1.5, failIt: true });
    expect(r.kind).toBe("fail");
    expect(seen).toEqual([
      { port: "in", usage: { llm_input_tokens: 105, llm_calls: 1 } },
      { port: "in", usage: { llm_input_tokens: 6.5, llm_calls: 1 } },
    ]);
    expect(USAGE_ATTR_PREFIX).toBe("tiny.usage.");
  });

  test("outside a hop it does nothing; a non-finite amount is an error naming the unit and value", () => {
    expect(() => meter({}, "credits", 3)).not.toThrow();
    expect(() => meter({}, "credits", Number.NaN)).toThrow('meter: amount of unit "credits" must be a finite number, got NaN');
  });
});
