/**
 * The published `status.ports` (src/runtime/runner/status.ts, runtime-spec §2.6) with its memo of
 * the byte fields: a memoized read publishes exactly what building it anew publishes, whatever the
 * port's configuration holds.
 */
import { describe, expect, test } from "bun:test";
import { source, target, Type } from "tinyhost";
import { configurationKey, maskSchemaSource, PUBLISHED_PER_SCHEMA, redact, statusPorts } from "../../../src/runtime/runner/status.ts";
import { portPlatformSchema, schemaToBase64 } from "../../../src/runtime/schema/index.ts";
import type { AnyPort } from "../../../src/core/ports.ts";

const Settings = Type.Object({ context: Type.Any(), apiKey: Type.String() });
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v), "utf8").toString("base64");
const decode = (s: string) => JSON.parse(Buffer.from(s, "base64").toString("utf8")) as unknown;

/** The byte fields built from scratch, as statusPorts did before the memo. */
function fresh(p: AnyPort) {
  return {
    schema: schemaToBase64(portPlatformSchema({ ...p, configuration: maskSchemaSource(p.configuration) })),
    configuration: b64(redact(p.configuration ?? null)),
  };
}

describe("status ports", () => {
  test("the same schema object with another configuration publishes that configuration and the schema inferred from it", () => {
    const a = target("_settings", Settings, { default: { context: { n: 1 }, apiKey: "k1" } }) as AnyPort;
    const b = target("_settings", Settings, { default: { context: { word: "x", list: [1] }, apiKey: "" } }) as AnyPort;
    const [pa] = statusPorts([a]);
    const [pb] = statusPorts([b]);
    expect(pa!.configuration).toBe(fresh(a).configuration);
    expect(pb!.configuration).toBe(fresh(b).configuration);
    expect(pb!.schema).toBe(fresh(b).schema);
    expect(pb!.schema).not.toBe(pa!.schema); // context's inferred properties differ
    expect(decode(pa!.configuration)).toEqual({ context: { n: 1 }, apiKey: "<redacted>" });
    // Read again: the same answer, from the memo.
    expect(statusPorts([a])[0]).toEqual(pa!);
  });

  test("two ports of one schema publish their own root names", () => {
    const In = Type.Object({ v: Type.Number() });
    const ports = [target("in", In) as AnyPort, source("out", In) as AnyPort];
    const out = statusPorts(ports);
    expect(out.map((p) => p.schema)).toEqual(ports.map((p) => fresh(p).schema));
    expect((decode(out[0]!.schema) as { $ref: string }).$ref).not.toBe((decode(out[1]!.schema) as { $ref: string }).$ref);
  });

  test("a configuration whose JSON hides a difference (an undefined field, a Date) is built every time, so its inferred schema is right", () => {
    const withUndefined = target("_settings", Settings, { default: { context: { a: undefined, b: 1 }, apiKey: "" } }) as AnyPort;
    const without = target("_settings", Settings, { default: { context: { b: 1 }, apiKey: "" } }) as AnyPort;
    const withDate = target("_settings", Settings, { default: { context: { at: new Date(0) }, apiKey: "" } }) as AnyPort;
    const withText = target("_settings", Settings, { default: { context: { at: new Date(0).toISOString() }, apiKey: "" } }) as AnyPort;
    for (const p of [without, withUndefined, withText, withDate]) expect(statusPorts([p])[0]!.schema).toBe(fresh(p).schema);
    expect(fresh(withUndefined).schema).not.toBe(fresh(without).schema);
    expect(fresh(withDate).schema).not.toBe(fresh(withText).schema);
  });

  test("configurationKey is the JSON of plain values and undefined for values JSON does not carry exactly", () => {
    expect(configurationKey({ a: [1, "x", null, { b: true }] })).toBe('{"a":[1,"x",null,{"b":true}]}');
    expect(configurationKey(undefined)).toBe("null");
    expect(configurationKey(Object.assign(Object.create(null), { a: 1 }))).toBe('{"a":1}');
    for (const v of [
      { a: undefined },
      [undefined],
      { f: () => 1 },
      { n: Number.NaN },
      { n: Infinity },
      { d: new Date(0) },
      { m: new Map() },
      { b: 1n },
      { s: Symbol("s") },
      { j: { toJSON: () => 1 } },
    ]) {
      expect(configurationKey(v)).toBeUndefined();
    }
  });

  test("more configurations of one schema than the memo keeps still publish right", () => {
    const ports = Array.from(
      { length: PUBLISHED_PER_SCHEMA + 10 },
      (_, i) => target("_settings", Settings, { default: { context: { i }, apiKey: "" } }) as AnyPort,
    );
    for (const p of ports) statusPorts([p]);
    for (const p of [ports[0]!, ports.at(-1)!]) expect(statusPorts([p])[0]).toMatchObject(fresh(p));
  });

  test("a credential held in an untyped field is masked in the schema's inferred defaults too, not only in the configuration", () => {
    const settings = { context: { apiKey: "sk-live-123456", url: "https://api.example.com", headers: [{ authorization: "Bearer tok-987654" }] }, apiKey: "" };
    const [p] = statusPorts([target("_settings", Settings, { default: settings }) as AnyPort]);
    const schemaText = Buffer.from(p!.schema, "base64").toString("utf8");
    const configText = Buffer.from(p!.configuration, "base64").toString("utf8");
    for (const secret of ["sk-live-123456", "tok-987654"]) {
      expect(schemaText).not.toContain(secret);
      expect(configText).not.toContain(secret);
    }
    // Masked, not dropped: the property is still published, with the mask as its default.
    expect(schemaText).toContain('"apiKey":{"type":"string","default":"<redacted>"');
    expect(schemaText).toContain("https://api.example.com");
    expect(settings.context.apiKey).toBe("sk-live-123456"); // the component's own value is untouched
  });

  test("a configuration without credentials infers its schema from the very same object", () => {
    const config = { context: { n: 1, list: [{ word: "x" }] }, apiKey: "{{$.key}}" };
    expect(maskSchemaSource(config)).toBe(config);
    const p = target("_settings", Settings, { default: config }) as AnyPort;
    expect(statusPorts([p])[0]!.schema).toBe(schemaToBase64(portPlatformSchema(p)));
  });

  test("a key named __proto__ is published as a key, masked inside like any other", () => {
    const parsed = JSON.parse('{"__proto__":{"token":"abc","n":1},"a":1}') as unknown;
    expect(JSON.stringify(redact(parsed))).toBe('{"__proto__":{"token":"<redacted>","n":1},"a":1}');
    expect(Object.getPrototypeOf(redact(parsed))).toBe(Object.prototype);
    expect(JSON.stringify(maskSchemaSource(parsed))).toBe('{"__proto__":{"token":"<redacted>","n":1},"a":1}');
  });
});
