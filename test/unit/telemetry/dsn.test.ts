import { describe, expect, test } from "bun:test";
import { OtlpDsnError, parseOtlpDsn } from "../../../src/telemetry/dsn.ts";

describe("OTLP_DSN parsing (runtime-spec §9.1)", () => {
  const accepted: Array<[string, { scheme: string; host: string; port: string; token: string; endpoint: string }]> = [
    [
      "http://token@tinysystems-otel-collector:2345",
      { scheme: "http", host: "tinysystems-otel-collector", port: "2345", token: "token", endpoint: "tinysystems-otel-collector:2345" },
    ],
    ["https://abc123@api.example.com", { scheme: "https", host: "api.example.com", port: "413", token: "abc123", endpoint: "api.example.com:413" }],
    ["http://t@[::1]:4317", { scheme: "http", host: "::1", port: "4317", token: "t", endpoint: "[::1]:4317" }],
    ["http://t:ignored@127.0.0.1:14317/path", { scheme: "http", host: "127.0.0.1", port: "14317", token: "t", endpoint: "127.0.0.1:14317" }],
  ];
  for (const [dsn, want] of accepted) {
    test(`accepts ${dsn}`, () => {
      const got = parseOtlpDsn(dsn);
      expect({ scheme: got.scheme, host: got.host, port: got.port, token: got.token, endpoint: got.endpoint }).toEqual(want);
      expect(got.original).toBe(dsn);
    });
  }

  const rejected: Array<[string, string]> = [
    ["tinysystems-otel-collector:2345", "no scheme"],
    ["http://tinysystems-otel-collector:2345", "no token"],
    ["http://@collector:2345", "no token"],
    ["http://<token>@collector:2345", "placeholder <token>"],
    ["http://token@", "no host"],
    ["http://token@:4317", "no host"],
    ["http://token@collector:14318", "port 14318"],
    ["http://token@collector:http", "not a number"],
    ["http://token@collector:99999", "outside 1-65535"],
    ["http://token@[bad", "not a valid host"],
    ["ftp://token@collector:4317", "not http or https"],
  ];
  for (const [dsn, reason] of rejected) {
    test(`rejects ${dsn} (${reason}) naming the variable and the value`, () => {
      let err: unknown;
      try {
        parseOtlpDsn(dsn);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(OtlpDsnError);
      const e = err as OtlpDsnError;
      expect(e.code).toBe("OTLP_DSN_INVALID");
      expect(e.message).toContain(`OTLP_DSN=${JSON.stringify(dsn)}`);
      expect(e.message).toContain(reason);
    });
  }
});
