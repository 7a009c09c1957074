/**
 * Strings that look like `[[secret:…]]` placeholders but are not one stay literal text, as Go's
 * pkg/secret leaves them; the runtime names each (setting path and text) in one warning per node,
 * not repeated while the settings hold the same ones.
 */
import { describe, expect, test } from "bun:test";
import { defineComponent, target, Type } from "tinyhost";
import { Scheduler } from "../../../src/runtime/scheduler/index.ts";
import { containsPlaceholder, malformedPlaceholders, resolvePlaceholders, warnMalformedPlaceholders } from "../../../src/runtime/secrets/index.ts";
import { makeNode, MODULE, nodeName } from "../../support/fake-components.ts";

process.env.TINYHOST_LOG_LEVEL ??= "silent";

const FORM = "needs the form [[secret:<name>/<key>]], name and key of letters, digits, '.', '_' and '-'";

function recorder() {
  const lines: { obj: object | string; msg?: string }[] = [];
  return { lines, warn: (obj: object | string, msg?: string) => void lines.push({ obj, msg }) };
}

describe("malformed placeholders", () => {
  test("empty, keyless, three-part and embedded placeholders are found with their paths; valid ones and plain text are not", () => {
    const settings = {
      empty: "[[secret:]]",
      keyless: "[[secret:name]]",
      deep: { list: [{ v: "[[secret:a/b/c]]" }, "[[secret:ok/key]]"] },
      "x-header": "Bearer [[secret:api/token]]",
      plain: "secret: hello",
      good: "[[secret:api/token]]",
      n: 3,
    };
    expect(malformedPlaceholders(settings)).toEqual([
      { path: "empty", text: "[[secret:]]", reason: FORM },
      { path: "keyless", text: "[[secret:name]]", reason: FORM },
      { path: "deep.list[0].v", text: "[[secret:a/b/c]]", reason: FORM },
      { path: '["x-header"]', text: "Bearer [[secret:api/token]]", reason: "a placeholder must be the whole value" },
    ]);
    expect(malformedPlaceholders({ a: "[[secret:x/y]]", b: ["text"] })).toEqual([]);
  });

  test("they pass through resolution as literal text (Go's behaviour), and alone do not count as placeholders", async () => {
    const settings = { token: "[[secret:name]]", other: "[[secret:]]" };
    expect(containsPlaceholder(settings)).toBe(false);
    const resolved = await resolvePlaceholders(settings, () => Promise.reject(new Error("must not be read")));
    expect(resolved.value).toEqual(settings);
    expect(resolved.secrets).toEqual([]);
  });

  test("one warning per node naming every path and text; not repeated for the same settings, again once they change", () => {
    const log = recorder();
    const settings = { token: "[[secret:name]]", nested: { v: "[[secret:a/b/c]]" } };
    let last = warnMalformedPlaceholders(settings, log, "n1");
    expect(log.lines).toHaveLength(1);
    expect(log.lines[0]!.obj).toEqual({
      node: "n1",
      placeholders: [
        { path: "token", text: "[[secret:name]]" },
        { path: "nested.v", text: "[[secret:a/b/c]]" },
      ],
    });
    expect(log.lines[0]!.msg).toBe(
      `settings hold 2 strings that are not [[secret:<name>/<key>]] placeholders, passed on as literal text (as the Go SDK does): token: "[[secret:name]]" (${FORM}); nested.v: "[[secret:a/b/c]]" (${FORM})`,
    );
    last = warnMalformedPlaceholders({ ...settings }, log, "n1", last); // a re-delivery
    expect(log.lines).toHaveLength(1);
    last = warnMalformedPlaceholders({ token: "[[secret:name/]]" }, log, "n1", last);
    expect(log.lines).toHaveLength(2);
    expect(log.lines[1]!.msg).toContain(
      'settings hold a string that is not a [[secret:<name>/<key>]] placeholder, passed on as literal text (as the Go SDK does): token: "[[secret:name/]]"',
    );
    expect(warnMalformedPlaceholders({ token: "[[secret:name/key]]" }, log, "n1", last)).toBe("");
    expect(log.lines).toHaveLength(2);
  });
});

describe("in the scheduler", () => {
  const seen: unknown[] = [];
  const keeper = defineComponent({
    info: { name: "keeper", description: "K", info: "" },
    ports: () => [target("_settings", Type.Object({ token: Type.String(), region: Type.String() }), { default: { token: "", region: "" } })],
    onSettings(_ctx, s) {
      seen.push(s);
    },
    handle: () => undefined,
  });
  const node = (settings: unknown) => makeNode("k", "keeper", { ports: [{ from: "", port: "_settings", config: settings }] });

  function logger() {
    const warnings: { obj: object | string; msg?: string }[] = [];
    const noop = () => {};
    const log = { debug: noop, info: noop, error: noop, warn: (obj: object | string, msg?: string) => void warnings.push({ obj, msg }) };
    return { warnings, log: { ...log, child: () => log } };
  }

  test("a settings delivery holding one warns once for the node, naming path and text; the component gets the literal text", async () => {
    seen.length = 0;
    const { warnings, log } = logger();
    const s = new Scheduler({ module: MODULE, log });
    s.install(keeper);
    const status = await s.update(node({ token: "[[secret:name]]", region: "eu" }));
    expect(status.error).not.toBe(true);
    expect(seen).toEqual([{ token: "[[secret:name]]", region: "eu" }]);
    const mine = () => warnings.filter((w) => typeof w.msg === "string" && w.msg.includes("[[secret:<name>/<key>]]"));
    expect(mine()).toHaveLength(1);
    expect(mine()[0]!.obj).toEqual({ node: nodeName("k"), placeholders: [{ path: "token", text: "[[secret:name]]" }] });
    await s.update(node({ token: "[[secret:name]]", region: "eu" })); // reconciled again, unchanged
    expect(mine()).toHaveLength(1);
    await s.update(node({ token: "[[secret:name]]", region: "[[secret:]]" }));
    expect(mine()).toHaveLength(2);
    expect(mine()[1]!.msg).toContain('region: "[[secret:]]"');
    await s.update(node({ token: "plain", region: "eu" }));
    expect(mine()).toHaveLength(2);
    await s.destroy(nodeName("k"));
  });
});
