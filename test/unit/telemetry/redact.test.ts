import { describe, expect, test } from "bun:test";
import { credentialKeysOfSchema, REDACTED, redactedPayload, redactValue } from "../../../src/telemetry/redact.ts";

const R = REDACTED;

describe("redaction (runtime-spec §2.8)", () => {
  const table: Array<[string, unknown, unknown]> = [
    ["api key field", { apiKey: "abc" }, { apiKey: R }],
    ["api-key / api_key spellings", { "api-key": "a", api_key: "b", APIKEY: "c" }, { "api-key": R, api_key: R, APIKEY: R }],
    [
      "password, secret, token, credential",
      { password: "p", clientSecret: "s", refresh_token: "t", credentials: "c" },
      { password: R, clientSecret: R, refresh_token: R, credentials: R },
    ],
    [
      "authorization / bearer / private key / access key",
      { Authorization: "x", bearer: "y", private_key: "z", accessKey: "w" },
      { Authorization: R, bearer: R, private_key: R, accessKey: R },
    ],
    ["empty credential value kept", { password: "" }, { password: "" }],
    ["expression credential value kept", { token: "{{$.token}}" }, { token: "{{$.token}}" }],
    ["non-string credential value is walked, not masked", { token: 42, secret: { nested: "plain" } }, { token: 42, secret: { nested: "plain" } }],
    ["nested objects and arrays", { a: [{ password: "p", ok: 1 }], b: { c: { Token: "t" } } }, { a: [{ password: R, ok: 1 }], b: { c: { Token: R } } }],
    ["JWT value under a plain key", { v: "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U" }, { v: R }],
    ["bearer value", { header: "Bearer abcdefghijklmnopqrstuvwxyz012345" }, { header: R }],
    ["short bearer value kept", { header: "Bearer short" }, { header: "Bearer short" }],
    ["GitHub token", { v: `ghp_${"a".repeat(36)}` }, { v: R }],
    ["AWS access key id", { v: "AKIAIOSFODNN7EXAMPLE" }, { v: R }],
    ["Slack token", { v: "xoxb-123456789012-abcdefghij" }, { v: R }],
    ["OpenAI key", { v: `sk-proj-${"A".repeat(40)}` }, { v: R }],
    ["Anthropic key", { v: `sk-ant-api03-${"b".repeat(40)}` }, { v: R }],
    ["Google API key", { v: `AIza${"c".repeat(35)}` }, { v: R }],
    ["secret-shaped array element", ["plain", "AKIAIOSFODNN7EXAMPLE"], ["plain", R]],
    ["URL password in a plain field (ours: Go has no URL rule)", { note: "postgres://u:secretpw@h/db" }, { note: `postgres://u:${R}@h/db` }],
    [
      "URL password inside text, several URLs",
      { m: "from amqp://guest:guest@mq:5672/ and https://a:b%40c@x.io/p?q=1 done" },
      { m: `from amqp://guest:${R}@mq:5672/ and https://a:${R}@x.io/p?q=1 done` },
    ],
    ["a password holding @ is masked whole", { u: "redis://:p@ss@cache:6379" }, { u: `redis://:${R}@cache:6379` }],
    [
      "URL without a password kept",
      { u: "https://user@example.com/x", v: "http://h:8080/a@b", w: "mailto:a@b.c" },
      { u: "https://user@example.com/x", v: "http://h:8080/a@b", w: "mailto:a@b.c" },
    ],
    ["URL password as an expression kept", { u: "postgres://u:{{$.pw}}@h/db" }, { u: "postgres://u:{{$.pw}}@h/db" }],
    [
      "ordinary text kept",
      { msg: "risk-assessment for the task-runner", n: 1, ok: true, nil: null },
      { msg: "risk-assessment for the task-runner", n: 1, ok: true, nil: null },
    ],
  ];
  for (const [name, input, want] of table) {
    test(name, () => {
      const before = JSON.stringify(input);
      expect(redactValue(input)).toEqual(want);
      expect(JSON.stringify(input)).toBe(before); // the input is never mutated
    });
  }

  test("schema-marked keys are masked whatever their value", () => {
    expect(redactValue({ pin: 1234, dsn: "postgres://u:p@h/db", other: "x" }, { keys: new Set(["pin", "dsn"]) })).toEqual({ pin: R, dsn: R, other: "x" });
  });

  test("nothing masked → the same object is returned (no copy)", () => {
    const v = { a: { b: [1, 2, "x"] } };
    expect(redactValue(v)).toBe(v);
  });

  test("class instances are passed through untouched", () => {
    const err = new Error("token=abc");
    const out = redactValue({ err, password: "p" }) as { err: unknown };
    expect(out.err).toBe(err);
  });

  test("credential keys are collected from format password, writeOnly and secret at any depth", () => {
    const schema = {
      type: "object",
      properties: {
        user: { type: "string" },
        pass: { type: "string", format: "password" },
        conn: { type: "object", properties: { dsn: { type: "string", writeOnly: true } } },
        list: { type: "array", items: { type: "object", properties: { pin: { type: "string", secret: true } } } },
      },
      $defs: { X: { type: "object", properties: { key2: { type: "string", format: "password" } } } },
    };
    expect([...credentialKeysOfSchema(schema)].sort()).toEqual(["dsn", "key2", "pass", "pin"]);
  });

  test("span payload text is the redacted JSON; bytes are decoded first", () => {
    expect(redactedPayload({ password: "p", n: 1 })).toBe(`{"password":"${R}","n":1}`);
    expect(redactedPayload(new TextEncoder().encode('{"token":"t"}'))).toBe(`{"token":"${R}"}`);
    expect(redactedPayload(new TextEncoder().encode("not json"))).toBe("<8 bytes, not JSON>");
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(redactedPayload(cyclic)).toStartWith("<unencodable payload"); // JSON.stringify refuses the cycle; the walk stops at its depth limit
  });
});
