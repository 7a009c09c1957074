/**
 * Byte fields (Go []byte ↔ base64 JSON) of the CRDs: runtime-spec §8, components.md §6.
 */
import { describe, expect, test } from "bun:test";
import { Base64JsonError, base64Json, decodeBase64Json } from "../../../src/core/api/naming.ts";

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  return undefined;
}

describe("base64Json", () => {
  test("encodes the settings of components.md §6.1 to the note's exact base64", () => {
    expect(base64Json({ routes: ["GET", "POST"], enableDefaultPort: true })).toBe("eyJyb3V0ZXMiOlsiR0VUIiwiUE9TVCJdLCJlbmFibGVEZWZhdWx0UG9ydCI6dHJ1ZX0=");
  });

  test("round-trips through decodeBase64Json, non-ASCII text included", () => {
    const value = { context: "{{$}}", greeting: "héllo ✓ 日本", n: 3, nested: [null, true, { a: 1.5 }] };
    expect(decodeBase64Json(base64Json(value), "spec.ports[0].configuration")).toEqual(value);
  });

  test("encodes null as the JSON text null", () => {
    expect(Buffer.from(base64Json(null), "base64").toString()).toBe("null");
  });

  test("a value with no JSON form throws Base64JsonError naming the field", () => {
    const err = thrown(() => base64Json(undefined, "status.ports[1].configuration"));
    expect(err).toBeInstanceOf(Base64JsonError);
    expect((err as Base64JsonError).code).toBe("invalid_base64_json");
    expect((err as Base64JsonError).field).toBe("status.ports[1].configuration");
    expect((err as Error).message).toContain("status.ports[1].configuration");
  });
});

describe("decodeBase64Json", () => {
  test("decodes the router mapping of components.md §6.1", () => {
    const cfg =
      "eyJjb250ZXh0Ijoie3skfX0iLCJjb25kaXRpb25zIjpbeyJyb3V0ZSI6IkdFVCIsImNvbmRpdGlvbiI6Int7JC5tZXRob2QgPT0gJ0dFVCd9fSJ9LHsicm91dGUiOiJQT1NUIiwiY29uZGl0aW9uIjoie3skLm1ldGhvZCA9PSAnUE9TVCd9fSJ9XX0=";
    expect(decodeBase64Json(cfg, "spec.ports[1].configuration")).toEqual({
      context: "{{$}}",
      conditions: [
        { route: "GET", condition: "{{$.method == 'GET'}}" },
        { route: "POST", condition: "{{$.method == 'POST'}}" },
      ],
    });
  });

  test("an absent or empty field decodes to undefined", () => {
    expect(decodeBase64Json(undefined, "f")).toBeUndefined();
    expect(decodeBase64Json(null, "f")).toBeUndefined();
    expect(decodeBase64Json("", "f")).toBeUndefined();
  });

  test("line breaks inside the base64 are ignored", () => {
    const s = base64Json({ a: "x".repeat(80) });
    expect(decodeBase64Json(`${s.slice(0, 40)}\r\n${s.slice(40)}\n`, "f")).toEqual({ a: "x".repeat(80) });
  });

  test("a string that is not padded standard base64 throws naming the field and value", () => {
    for (const bad of ["not base64 !!", "eyJhIjoxfQ", "eyJhIjoxfQ-_"]) {
      const err = thrown(() => decodeBase64Json(bad, "spec.ports[0].configuration"));
      expect(err).toBeInstanceOf(Base64JsonError);
      expect((err as Error).message).toContain("spec.ports[0].configuration");
      expect((err as Error).message).toContain(JSON.stringify(bad));
    }
  });

  test("valid base64 of text that is not JSON throws naming the field", () => {
    const err = thrown(() => decodeBase64Json(Buffer.from("{oops").toString("base64"), "status.ports[0].schema"));
    expect(err).toBeInstanceOf(Base64JsonError);
    expect((err as Base64JsonError).field).toBe("status.ports[0].schema");
    expect((err as Error).message).toContain("not JSON");
  });
});
