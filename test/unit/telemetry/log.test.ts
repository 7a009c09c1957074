import { afterEach, describe, expect, test } from "bun:test";
import pino from "pino";
import { InMemorySpanExporter } from "@opentelemetry/sdk-trace";
import { loggerOptions } from "../../../src/telemetry/log.ts";
import { forgetSecretValues, rememberSecretValue } from "../../../src/telemetry/secret-values.ts";
import { activeTracer, setupTracing, shutdownTracing } from "../../../src/telemetry/tracing.ts";

/** A logger writing JSON lines into `lines`, built with the root logger's options. */
function capture(): { log: pino.Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const log = pino(loggerOptions("info"), { write: (s: string) => void lines.push(JSON.parse(s) as Record<string, unknown>) });
  return { log, lines };
}

describe("logs", () => {
  afterEach(() => shutdownTracing());

  test("a line logged inside a span carries that span's trace_id and span_id", async () => {
    await setupTracing({ serviceName: "log-test", exporter: new InMemorySpanExporter() });
    const { log, lines } = capture();
    const ids = activeTracer()!.startActiveSpan("op", (span) => {
      log.child({ node: "n1", port: "in" }).info("inside");
      span.end();
      return span.spanContext();
    });
    log.info("outside");
    expect(lines[0]).toMatchObject({ msg: "inside", node: "n1", port: "in", trace_id: ids.traceId, span_id: ids.spanId });
    expect(lines[1]!.trace_id).toBeUndefined();
  });

  test("without tracing no trace fields are added", () => {
    const { log, lines } = capture();
    log.info({ a: 1 }, "plain");
    expect(Object.keys(lines[0]!)).not.toContain("trace_id");
    expect(lines[0]!.a).toBe(1);
  });

  test("credential-looking values are redacted in log lines; errors still serialize", () => {
    const { log, lines } = capture();
    log.info(
      { settings: { apiKey: "k-123", url: "http://x" }, auth: "Bearer abcdefghijklmnopqrstuvwxyz0123", headers: { cookie: "sid=1" }, err: new Error("boom") },
      "configured",
    );
    const l = lines[0]!;
    expect(l.settings).toEqual({ apiKey: "<redacted>", url: "http://x" });
    expect(l.auth).toBe("<redacted>");
    expect(l.headers).toEqual({ cookie: "<redacted>" });
    expect((l.err as { message: string }).message).toBe("boom");
  });

  test("an err field that is a message string stays that string (not one key per character)", () => {
    const { log, lines } = capture();
    log.error({ err: "http_server: cannot listen on :8080" }, "restore from metadata failed");
    expect(lines[0]!.err).toBe("http_server: cannot listen on :8080");
  });

  test("a cyclic object can still be logged", () => {
    const { log, lines } = capture();
    const cyclic: Record<string, unknown> = { password: "p" };
    cyclic.self = cyclic;
    log.info({ cyclic }, "cyclic");
    expect((lines[0]!.cyclic as Record<string, unknown>).password).toBe("<redacted>");
  });
});

describe("logs mask resolved secret values inside logged errors", () => {
  afterEach(() => forgetSecretValues());

  test("an Error as a field or as the only argument: message, stack and msg masked", () => {
    rememberSecretValue("[[secret:api-creds/password]]", "s3cr3t-Pa55word");
    const { log, lines } = capture();
    log.error({ err: new Error("boom s3cr3t-Pa55word") }, "failed");
    log.error(new Error("direct s3cr3t-Pa55word"));
    const text = JSON.stringify(lines);
    expect(text).not.toContain("s3cr3t-Pa55word");
    expect(lines[0]!.err).toMatchObject({ type: "Error", message: "boom <redacted>" });
    expect(lines[1]!.msg).toBe("direct <redacted>");
    expect(String((lines[1]!.err as { stack: string }).stack)).toContain("Error: direct <redacted>");
  });
});
