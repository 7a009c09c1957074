import { describe, expect, test } from "bun:test";
import { HumanLogger, logEventText, type LogEvent } from "../../../src/local/human-log.ts";
import type { ComponentLogger } from "../../../src/core/context.ts";
import { forgetSecretValues, rememberSecretValue } from "../../../src/telemetry/secret-values.ts";

/** A JSON-logger stand-in recording what reaches it, with its bindings. */
function jsonLogger(lines: string[], bindings: object = {}): ComponentLogger & { child(b: object): ComponentLogger } {
  const at = (level: string) => (obj: object | string, msg?: string) =>
    lines.push(`${level} ${JSON.stringify(bindings)} ${typeof obj === "string" ? obj : `${JSON.stringify(obj)} ${msg}`}`);
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error"), child: (b) => jsonLogger(lines, { ...bindings, ...b }) };
}

describe("HumanLogger", () => {
  test("warnings and errors go to the sink with the node and port bindings, not to the JSON logger", () => {
    const json: string[] = [];
    const events: LogEvent[] = [];
    const log = new HumanLogger(jsonLogger(json), (e) => events.push(e)).child({ node: "h.m.sig-1" }).child({ port: "_control" });
    log.warn({ err: "cannot listen" }, "signal: downstream failed");
    log.error("plain text");
    expect(json).toEqual([]);
    expect(events).toEqual([
      { level: "warn", node: "h.m.sig-1", port: "_control", msg: "signal: downstream failed", err: "cannot listen", fields: { err: "cannot listen" } },
      { level: "error", node: "h.m.sig-1", port: "_control", msg: "plain text", fields: {} },
    ]);
  });

  test("debug and info stay JSON, with the bindings passed to the JSON logger's children", () => {
    const json: string[] = [];
    const events: LogEvent[] = [];
    const log = new HumanLogger(jsonLogger(json), (e) => events.push(e)).child({ node: "h.m.a-1" });
    log.debug({ x: 1 }, "retrying hop");
    log.info("hello");
    expect(events).toEqual([]);
    expect(json).toEqual(['debug {"node":"h.m.a-1"} {"x":1} retrying hop', 'info {"node":"h.m.a-1"} hello']);
  });

  test("a scheduler line names its node in a field; a numeric port field is a field, not the hop's port", () => {
    const events: LogEvent[] = [];
    const log = new HumanLogger(jsonLogger([]), (e) => events.push(e));
    log.warn({ node: "h.m.a-1", err: new Error("bad settings") }, "reconcile failed; node rolled back");
    log.child({ node: "h.m.web-1" }).error({ err: "cannot listen on :8080", port: 8080 }, "http_server: restore from metadata failed");
    expect(events.map((e) => [e.node, e.port, e.err])).toEqual([
      ["h.m.a-1", "", "bad settings"],
      ["h.m.web-1", "", "cannot listen on :8080"],
    ]);
    expect(logEventText(events[1]!)).toBe("http_server: restore from metadata failed: cannot listen on :8080 (port=8080)");
  });

  test("extra field values are cut at 60 characters", () => {
    const text = logEventText({ level: "warn", node: "", port: "", msg: "m", fields: { key: "x".repeat(70), n: { a: 1 } } });
    expect(text).toBe(`m (key=${"x".repeat(60)}…, n={"a":1})`);
  });
});

describe("HumanLogger masks what the JSON logger masks", () => {
  test("a resolved secret value in the message, the err field or another field never reaches the sink", () => {
    rememberSecretValue("[[secret:api-creds/password]]", "s3cr3t-Pa55word");
    try {
      const events: LogEvent[] = [];
      const log = new HumanLogger(jsonLogger([]), (e) => events.push(e)).child({ node: "h.m.sig-1" });
      log.warn({ err: "boom s3cr3t-Pa55word", url: "x?k=s3cr3t-Pa55word" }, "signal: downstream failed");
      log.error({ err: new Error("Bearer s3cr3t-Pa55word rejected") }, "saw s3cr3t-Pa55word");
      log.warn({ password: "plain-credential" }, "a credential key");
      const text = events.map(logEventText).join("\n");
      expect(text).not.toContain("s3cr3t-Pa55word");
      expect(text).not.toContain("plain-credential");
      expect(events.map((e) => e.err)).toEqual(["boom <redacted>", "Bearer <redacted> rejected", undefined]);
      expect(logEventText(events[0]!)).toBe("signal: downstream failed: boom <redacted> (url=x?k=<redacted>)");
      expect(events[1]!.msg).toBe("saw <redacted>");
    } finally {
      forgetSecretValues();
    }
  });
});
