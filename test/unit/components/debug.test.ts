import { describe, expect, test } from "bun:test";
import { testComponent, type ComponentHarness } from "tinyhost";
import debug from "../../../components/debug.ts";
import { REDACTED } from "../../../src/telemetry/secret-values.ts";

process.env.TINYHOST_LOG_LEVEL ??= "silent";

function published(h: ComponentHarness, port: string): unknown {
  const p = h.status().ports?.find((x) => x.name === port);
  return p ? JSON.parse(Buffer.from(p.configuration, "base64").toString("utf8")) : undefined;
}

describe("debug ports", () => {
  test("declares in (left), _control and _settings (top) with Go's labels", () => {
    expect(debug.ports().map((p) => [p.name, p.label, p.source, p.position])).toEqual([
      ["in", "In", false, "left"],
      ["_control", "Control", true, "top"],
      ["_settings", "Settings", false, "top"],
    ]);
  });

  test("settings require a configurable context; the control's context is read-only", () => {
    const [, control, settings] = debug.ports().map((p) => JSON.parse(JSON.stringify(p.schema)));
    expect(settings.required).toEqual(["context"]);
    expect(settings.properties.context.configurable).toBe(true);
    expect(control.properties.context.readonly).toBe(true);
  });
});

describe("debug", () => {
  test("shows the last message it received on _control and returns nothing", async () => {
    const h = await testComponent(debug);
    const first = await h.send("in", { count: 1, line: "tick #1" });
    await h.send("in", { count: 2, line: "tick #2" });
    expect(first).toEqual({ kind: "empty" });
    expect(published(h, "_control")).toEqual({ context: { count: 2, line: "tick #2" } });
  });

  test("shows the settings' context until a message arrives", async () => {
    const h = await testComponent(debug, { settings: { context: { hello: "world" } } });
    expect(published(h, "_control")).toEqual({ context: { hello: "world" } });
    await h.send("in", { n: 1 });
    expect(published(h, "_control")).toEqual({ context: { n: 1 } });
  });

  test("masks credential-looking values before keeping the message", async () => {
    const h = await testComponent(debug);
    await h.send("in", { context: { apiKey: "sk-secret-value", question: "is anything unhealthy?" } });
    const kept = (h.self as { context: { context: Record<string, unknown> } }).context.context;
    expect(kept.apiKey).toBe(REDACTED);
    expect(kept.question).toBe("is anything unhealthy?");
  });

  test("a message that is not an object fails validation", async () => {
    const h = await testComponent(debug);
    const r = await h.send("in", "plain text");
    expect(r.kind === "fail" && (r.error as Error & { code: string }).code).toBe("VALIDATION");
  });
});
