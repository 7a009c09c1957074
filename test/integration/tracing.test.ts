/**
 * Traces across modules over a real wire: two module processes (front, back) joined by a real
 * nats-server, both exporting OTLP/HTTP JSON to an in-test receiver (Bun.serve). Checks that one
 * HTTP request yields one trace — server span → output span (front) → input span (back, other
 * process) — and that concurrent requests never share or cross-link traces.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startNats, type NatsServer } from "../support/nats.ts";
import { startProcess, tail, waitUntil, type ManagedProcess } from "../support/process.ts";

interface OtlpAttr {
  key: string;
  value: { stringValue?: string; intValue?: string | number; boolValue?: boolean };
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes?: OtlpAttr[];
  events?: Array<{ name: string; attributes?: OtlpAttr[] }>;
}
/** A received span with its resource's service.name. */
interface Got extends OtlpSpan {
  service: string;
}

const received: Got[] = [];
const requestHeaders: Array<Record<string, string>> = [];
let receiver: ReturnType<typeof Bun.serve>;
let nats: NatsServer;
const modules: Record<string, { proc: ManagedProcess; log: string; port: number }> = {};

function attr(list: OtlpAttr[] | undefined, key: string): string | number | boolean | undefined {
  const v = list?.find((a) => a.key === key)?.value;
  if (!v) return undefined;
  return v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : v.boolValue);
}

async function startModule(role: "front" | "back", dir: string): Promise<void> {
  const log = join(dir, `${role}.log`);
  const proc = startProcess({
    name: role,
    cmd: [process.execPath, join(import.meta.dir, "../fixtures/tracing/module.ts")],
    logFile: log,
    env: {
      ROLE: role,
      NATS_URL: nats.url,
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiver.port}`,
      OTEL_EXPORTER_OTLP_HEADERS: "x-tenant=t1",
      TINYHOST_LOG_LEVEL: "warn",
    },
  });
  let port = -1;
  await waitUntil(
    `${role} module ready`,
    async () => {
      const m = /READY (\d+)/.exec(await Bun.file(log).text());
      if (m) port = Number(m[1]);
      return port >= 0;
    },
    20_000,
  ).catch(async (e: Error) => {
    throw new Error(`${e.message}\n${await tail(log)}`);
  });
  modules[role] = { proc, log, port };
}

/** Spans of one trace, once `count` of them arrived. */
async function traceSpans(traceId: string, count: number): Promise<Got[]> {
  const pick = () => received.filter((s) => s.traceId === traceId);
  await waitUntil(`${count} spans of trace ${traceId} (have ${pick().length})`, async () => pick().length >= count, 15_000, 50);
  return pick();
}

async function post(body: unknown, headers: Record<string, string> = {}): Promise<{ traceId: string; json: unknown }> {
  const res = await fetch(`http://127.0.0.1:${modules.front!.port}/`, {
    method: "POST",
    body: JSON.stringify(body),
    headers: { "content-type": "application/json", ...headers },
  });
  return { traceId: res.headers.get("x-trace-id") ?? "", json: await res.json() };
}

describe("tracing across modules (real NATS, OTLP/HTTP JSON)", () => {
  beforeAll(async () => {
    receiver = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(req) {
        if (new URL(req.url).pathname !== "/v1/traces") return new Response("not found", { status: 404 });
        requestHeaders.push(Object.fromEntries(req.headers));
        const body = (await req.json()) as { resourceSpans?: Array<{ resource?: { attributes?: OtlpAttr[] }; scopeSpans?: Array<{ spans?: OtlpSpan[] }> }> };
        for (const rs of body.resourceSpans ?? []) {
          const service = String(attr(rs.resource?.attributes, "service.name"));
          for (const ss of rs.scopeSpans ?? []) for (const s of ss.spans ?? []) received.push({ ...s, service });
        }
        return Response.json({});
      },
    });
    nats = await startNats({ jetstream: false });
    const dir = mkdtempSync(join(process.env.TINYHOST_TEST_TMP ?? tmpdir(), "tinyhost-tracing-"));
    await Promise.all([startModule("back", dir), startModule("front", dir)]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all(Object.values(modules).map((m) => m.proc.stop(5000)));
    await nats?.dispose();
    receiver?.stop(true);
  });

  test("one request is one trace: HTTP server span → output span (front) → input span (back, over NATS)", async () => {
    const { traceId, json } = await post({ n: 1 });
    expect(json).toEqual({ echo: { n: 1 } });
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    const spans = await traceSpans(traceId, 3);
    const server = spans.find((s) => s.service === "front" && attr(s.attributes, "http.request.method") === "POST")!;
    const out = spans.find((s) => s.service === "front" && attr(s.attributes, "port") === "h1.front.ingress-1:out")!;
    const input = spans.find((s) => s.service === "back" && attr(s.attributes, "to") === "h2.back.echo-1:in")!;
    expect([server, out, input].every(Boolean)).toBe(true);
    expect(server.parentSpanId ?? "").toBe("");
    expect(out.parentSpanId).toBe(server.spanId);
    expect(input.parentSpanId).toBe(out.spanId); // the parent crossed the wire in traceparent
    expect(attr(input.attributes, "from")).toBe("h1.front.ingress-1:out");
    expect(attr(input.attributes, "edgeID")).toBe("e-front-back");
    expect(attr(input.attributes, "flowID")).toBe("f1");
    const payload = input.events?.find((e) => e.name === "data");
    expect(JSON.parse(String(attr(payload?.attributes, "payload")))).toEqual({ body: { n: 1 } });
    expect(requestHeaders.some((h) => h["x-tenant"] === "t1")).toBe(true); // OTEL_EXPORTER_OTLP_HEADERS reach the collector
  });

  test("two concurrent requests get two traces, and no span of one links into the other", async () => {
    const [a, b] = await Promise.all([post({ who: "a", token: "secret-a" }), post({ who: "b", token: "secret-b" })]);
    expect(a.json).toEqual({ echo: { who: "a", token: "secret-a" } });
    expect(b.json).toEqual({ echo: { who: "b", token: "secret-b" } });
    expect(a.traceId).not.toBe(b.traceId);
    const [sa, sb] = await Promise.all([traceSpans(a.traceId, 3), traceSpans(b.traceId, 3)]);
    for (const [spans, other, who] of [
      [sa, sb, "a"],
      [sb, sa, "b"],
    ] as const) {
      const ids = new Set(spans.map((s) => s.spanId));
      const otherIds = new Set(other.map((s) => s.spanId));
      for (const s of spans) if (s.parentSpanId) expect(ids.has(s.parentSpanId) && !otherIds.has(s.parentSpanId)).toBe(true);
      const backInput = spans.find((s) => s.service === "back")!;
      const data = JSON.parse(String(attr(backInput.events?.find((e) => e.name === "data")?.attributes, "payload"))) as {
        body: { who: string; token: string };
      };
      expect(data.body.who).toBe(who); // each trace carries its own request's payload …
      expect(data.body.token).toBe("<redacted>"); // … with credentials masked
    }
  });

  test("a request carrying a traceparent joins the caller's trace (as a Go module's would)", async () => {
    const caller = { traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7" };
    const { traceId } = await post({ n: 3 }, { traceparent: `00-${caller.traceId}-${caller.spanId}-01` });
    expect(traceId).toBe(caller.traceId);
    const spans = await traceSpans(caller.traceId, 3);
    expect(spans.find((s) => s.service === "front" && attr(s.attributes, "http.request.method") === "POST")!.parentSpanId).toBe(caller.spanId);
    expect(spans.some((s) => s.service === "back")).toBe(true);
  });
});
