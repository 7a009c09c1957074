import { afterEach, describe, expect, test } from "bun:test";
import { context, propagation, ROOT_CONTEXT, SpanStatusCode, trace } from "@opentelemetry/api";
import { InMemorySpanExporter, type ReadableSpan } from "@opentelemetry/sdk-trace";
import { defineComponent, ok, source, target, Type } from "tinyhost";
import { Scheduler } from "../../../src/runtime/scheduler/index.ts";
import { noopSpan, otelTracer } from "../../../src/runtime/runner/tracer.ts";
import { startHttpServerSpan } from "../../../src/telemetry/http.ts";
import { reconcileSpan } from "../../../src/telemetry/reconcile.ts";
import { setupTracing, shutdownTracing, tracingEnabled, type TracingHandle } from "../../../src/telemetry/tracing.ts";
import { makeNode, MODULE, nodeName, relay } from "../../support/fake-components.ts";

process.env.TINYHOST_LOG_LEVEL ??= "silent";

/** `vault`: input with a password-format field; returns ok; emits `{apiKey, user}` on `out` when asked. */
const vault = defineComponent({
  info: { name: "vault", description: "Vault", info: "has a credential field" },
  ports: () => [
    target(
      "in",
      Type.Object({ user: Type.String(), pin: Type.String({ format: "password" }), fail: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])) }),
      { default: { user: "", pin: "" } },
    ),
    source("error", Type.Object({ error: Type.String() })),
  ],
  async handle(_ctx, output, _port, data) {
    if (data.fail) {
      await output("error", { error: "vault sealed" });
      throw new Error("sealed");
    }
    return ok({ user: data.user });
  },
});

async function traced(): Promise<{ exporter: InMemorySpanExporter; handle: TracingHandle }> {
  const exporter = new InMemorySpanExporter();
  const handle = await setupTracing({ serviceName: "unit", exporter });
  return { exporter, handle };
}

function events(s: ReadableSpan): Record<string, Record<string, unknown>> {
  return Object.fromEntries(s.events.map((e) => [e.name, { ...(e.attributes ?? {}) }]));
}

const parentOf = (s: ReadableSpan) => s.parentSpanContext?.spanId;

describe("tracing setup", () => {
  afterEach(() => shutdownTracing());

  test("unconfigured: no provider, no propagator, hop spans are the no-op span", async () => {
    const h = await setupTracing({ serviceName: "unit", env: {} });
    expect(h.config.enabled).toBe(false);
    expect(tracingEnabled()).toBe(false);
    expect(trace.getTracer("x").startSpan("s").isRecording()).toBe(false);
    const carrier: Record<string, string> = {};
    propagation.inject(context.active(), carrier);
    expect(carrier).toEqual({});
    const site = { name: "n", identity: { nodeName: "n", namespace: "", flowName: "", projectName: "" }, credentialKeys: () => new Set<string>() };
    expect(otelTracer.input(site, "in", { edgeId: "", from: "", to: "n:in", data: 1, depth: 0 })).toBe(noopSpan);
  });

  test("configured: W3C traceparent and baggage are injected from the active span", async () => {
    await traced();
    const carrier: Record<string, string> = {};
    const span = trace.getTracer("x").startSpan("s");
    const ctx = propagation.setBaggage(trace.setSpan(ROOT_CONTEXT, span), propagation.createBaggage({ tenant: { value: "t1" } }));
    context.with(ctx, () => propagation.inject(context.active(), carrier));
    expect(carrier.traceparent).toBe(`00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`);
    expect(carrier.baggage).toBe("tenant=t1");
  });

  test("trace ids start with the unix time in ns and span ids with the unix time in ms (Go's id shape)", async () => {
    await traced();
    const before = BigInt(Date.now()) * 1_000_000n;
    const span = trace.getTracer("x").startSpan("s");
    const after = BigInt(Date.now() + 1) * 1_000_000n;
    const ns = BigInt(`0x${span.spanContext().traceId.slice(0, 16)}`);
    expect(ns >= before && ns <= after).toBe(true);
    const ms = Number.parseInt(span.spanContext().spanId.slice(0, 8), 16);
    expect(Math.abs(ms - (Date.now() % 0x1_0000_0000))).toBeLessThan(1000);
  });
});

describe("hop spans (runtime-spec §2.8)", () => {
  afterEach(() => shutdownTracing());

  async function flow(): Promise<Scheduler> {
    const s = new Scheduler({ module: MODULE, debounceMs: 10, readyTimeoutMs: 50 });
    s.install(relay);
    s.install(vault);
    const labels = { "tinysystems.io/flow-name": "flow-1", "tinysystems.io/project-name": "proj-1" };
    await s.update(makeNode("a", "relay", { labels, edges: [{ port: "out", to: "v:in", id: "edge-av" }] }));
    await s.update(
      makeNode("v", "vault", {
        labels,
        ports: [{ from: "a:out", port: "in", config: { user: "{{$.context.user}}", pin: "{{$.context.pin}}", fail: "{{$.context.fail}}" } }],
      }),
    );
    return s;
  }

  test("input span → output span → downstream input span form one parent/child chain with §2.8 attributes", async () => {
    const { exporter, handle } = await traced();
    const s = await flow();
    exporter.reset();
    const r = await s.handle({
      edgeId: "",
      from: "signal",
      to: `${nodeName("a")}:in`,
      data: { context: { user: "ann", pin: "1234", token: "t0k" } },
      depth: 0,
    });
    expect(r.kind === "fail" ? r.error.message : "ok").toBe("ok");
    await handle.flush();
    const spans = exporter.getFinishedSpans();
    const inA = spans.find((x) => x.attributes.to === `${nodeName("a")}:in`)!;
    const outA = spans.find((x) => x.attributes.port === `${nodeName("a")}:out`)!;
    const inV = spans.find((x) => x.attributes.to === `${nodeName("v")}:in`)!;
    expect([inA, outA, inV].every(Boolean)).toBe(true);
    expect(parentOf(outA)).toBe(inA.spanContext().spanId);
    expect(parentOf(inV)).toBe(outA.spanContext().spanId);
    expect(new Set([inA, outA, inV].map((x) => x.spanContext().traceId)).size).toBe(1);
    expect(inA.name).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-1[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(inV.attributes).toMatchObject({ from: `${nodeName("a")}:out`, edgeID: "edge-av", flowID: "flow-1", projectID: "proj-1" });
    expect(outA.attributes).toMatchObject({ flowID: "flow-1", projectID: "proj-1" });
    // payloads: key rule on the signal, schema rule (format password) on the vault input
    expect(JSON.parse(events(inA).data!.payload as string)).toEqual({ context: { user: "ann", pin: "1234", token: "<redacted>" } });
    expect(JSON.parse(events(inV).data!.payload as string)).toEqual({ user: "ann", pin: "<redacted>", fail: null });
  });

  test("a failing hop records its error; an error-port emit adds a handled error event", async () => {
    const { exporter, handle } = await traced();
    const s = await flow();
    exporter.reset();
    const r = await s.handle({ edgeId: "", from: "signal", to: `${nodeName("a")}:in`, data: { context: { user: "u", pin: "p", fail: true } }, depth: 0 });
    expect(r.kind).toBe("fail");
    await handle.flush();
    const spans = exporter.getFinishedSpans();
    const inV = spans.find((x) => x.attributes.to === `${nodeName("v")}:in`)!;
    expect(inV.status).toEqual({ code: SpanStatusCode.ERROR, message: "sealed" });
    expect(inV.events.some((e) => e.name === "exception")).toBe(true);
    const errOut = spans.find((x) => x.attributes.port === `${nodeName("v")}:error`)!;
    expect(events(errOut).error).toEqual({ "exception.message": "vault sealed", port: `${nodeName("v")}:error`, handled: true });
    expect(parentOf(errOut)).toBe(inV.spanContext().spanId);
  });

  test("expression errors become expression_error events on the input span", async () => {
    const { exporter, handle } = await traced();
    const s = new Scheduler({ module: MODULE, debounceMs: 10, readyTimeoutMs: 50 });
    s.install(relay);
    await s.update(makeNode("a", "relay", { edges: [{ port: "out", to: "b:in" }] }));
    await s.update(makeNode("b", "relay", { ports: [{ from: "a:out", port: "in", config: { context: "{{$.context + 'x' * 2}}" } }] }));
    exporter.reset();
    await s.handle({ edgeId: "", from: "signal", to: `${nodeName("a")}:in`, data: { context: 1 }, depth: 0 });
    await handle.flush();
    const inB = exporter.getFinishedSpans().find((x) => x.attributes.to === `${nodeName("b")}:in`)!;
    const ev = events(inB).expression_error;
    expect(ev?.expression).toBeString();
    expect(ev?.error).toBeString();
  });
});

describe("HTTP request and reconcile spans", () => {
  afterEach(() => shutdownTracing());

  test("requests without traceparent each start their own trace", async () => {
    await traced();
    const a = startHttpServerSpan(new Request("http://h/x", { method: "POST" }));
    const b = startHttpServerSpan(new Request("http://h/x"));
    expect(a.recording && b.recording).toBe(true);
    expect(a.traceId).not.toBe(b.traceId);
    a.end(200);
    b.end(200);
  });

  test("a request with a traceparent continues the caller's trace; the flow run inside it is its child", async () => {
    const { exporter, handle } = await traced();
    const traceId = "0af7651916cd43dd8448eb211c80319c";
    const req = new Request("http://h/hook", { headers: { traceparent: `00-${traceId}-b7ad6b7169203331-01` } });
    const span = startHttpServerSpan(req);
    const inner = span.run(() => trace.getActiveSpan()!.spanContext());
    span.end(502);
    await handle.flush();
    const [server] = exporter.getFinishedSpans();
    expect(server!.spanContext().traceId).toBe(traceId);
    expect(parentOf(server!)).toBe("b7ad6b7169203331");
    expect(inner.spanId).toBe(server!.spanContext().spanId);
    expect(server!.attributes).toMatchObject({ "http.request.method": "GET", "url.path": "/hook", "http.response.status_code": 502 });
    expect(server!.status.code).toBe(SpanStatusCode.ERROR);
  });

  test("a request span ignores the context active where it was created (no cross-linking)", async () => {
    await traced();
    const outer = trace.getTracer("x").startSpan("server-start");
    const inner = context.with(trace.setSpan(ROOT_CONTEXT, outer), () => startHttpServerSpan(new Request("http://h/")));
    expect(inner.traceId).not.toBe(outer.spanContext().traceId);
  });

  test("reconcileSpan roots a trace, records a failure and re-throws it", async () => {
    const { exporter, handle } = await traced();
    const outer = trace.getTracer("x").startSpan("unrelated");
    const seen = await context.with(trace.setSpan(ROOT_CONTEXT, outer), () =>
      reconcileSpan("TinyNode ns/n1", () => trace.getActiveSpan()!.spanContext().traceId, { node: "n1" }),
    );
    await expect(reconcileSpan("TinyNode ns/n2", () => Promise.reject(new Error("conflict")))).rejects.toThrow("conflict");
    await handle.flush();
    const spans = exporter.getFinishedSpans();
    const ok1 = spans.find((s) => s.name === "reconcile TinyNode ns/n1")!;
    const bad = spans.find((s) => s.name === "reconcile TinyNode ns/n2")!;
    expect(seen).toBe(ok1.spanContext().traceId);
    expect(ok1.spanContext().traceId).not.toBe(outer.spanContext().traceId);
    expect(parentOf(ok1)).toBeUndefined();
    expect(ok1.attributes.node).toBe("n1");
    expect(bad.status).toEqual({ code: SpanStatusCode.ERROR, message: "conflict" });
  });

  test("without tracing, reconcileSpan and the HTTP span just run the function", async () => {
    expect(await reconcileSpan("x", () => 7)).toBe(7);
    const s = startHttpServerSpan(new Request("http://h/"));
    expect(s.recording).toBe(false);
    expect(s.run(() => 8)).toBe(8);
  });
});
