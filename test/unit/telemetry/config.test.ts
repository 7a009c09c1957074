import { describe, expect, test } from "bun:test";
import { OtelConfigError, parseOtlpHeaders, resolveTracingConfig } from "../../../src/telemetry/config.ts";
import { OtlpDsnError } from "../../../src/telemetry/dsn.ts";

describe("tracing configuration from the environment", () => {
  test("no OTLP variables → tracing off", () => {
    expect(resolveTracingConfig({})).toEqual({ enabled: false, reason: "OTLP_DSN not set, telemetry disabled" });
  });

  test("OTLP_DSN → OTLP/gRPC to the DSN's host with origin-dsn and gzip (as Go)", () => {
    const dsn = "http://tok@tinysystems-otel-collector:2345";
    expect(resolveTracingConfig({ OTLP_DSN: dsn })).toEqual({
      enabled: true,
      source: "OTLP_DSN",
      protocol: "grpc",
      url: "http://tinysystems-otel-collector:2345",
      tls: false,
      headers: { "origin-dsn": dsn },
      gzip: true,
    });
  });

  test("an https DSN selects TLS", () => {
    const c = resolveTracingConfig({ OTLP_DSN: "https://tok@collector.example:443" });
    expect(c.enabled && c.tls && c.url).toBe("https://collector.example:443");
  });

  test("OTLP_DISABLED with OTLP_DSN set disables instead of failing (Go exits 1)", () => {
    expect(resolveTracingConfig({ OTLP_DSN: "http://tok@c:2345", OTLP_DISABLED: "" }).enabled).toBe(false);
    expect(resolveTracingConfig({ OTLP_DSN: "not a dsn", OTLP_DISABLED: "1" }).enabled).toBe(false);
  });

  test("a rejected OTLP_DSN throws naming the variable", () => {
    expect(() => resolveTracingConfig({ OTLP_DSN: "http://<token>@c:2345" })).toThrow(OtlpDsnError);
  });

  test("OTEL_EXPORTER_OTLP_ENDPOINT gets /v1/traces appended and headers parsed", () => {
    expect(resolveTracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318/", OTEL_EXPORTER_OTLP_HEADERS: "api-key=a%20b, x-tenant = t1" })).toEqual(
      {
        enabled: true,
        source: "OTEL_EXPORTER_OTLP_ENDPOINT",
        protocol: "http/json",
        url: "http://127.0.0.1:4318/v1/traces",
        tls: false,
        headers: { "api-key": "a b", "x-tenant": "t1" },
        gzip: false,
      },
    );
  });

  test("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is used as is and wins over the base endpoint", () => {
    const c = resolveTracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://a:4318", OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "https://b:9999/custom" });
    expect(c.enabled && [c.source, c.url, c.tls]).toEqual(["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "https://b:9999/custom", true]);
  });

  test("protocol grpc keeps the base endpoint as the gRPC target", () => {
    const c = resolveTracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://a:4317", OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" });
    expect(c.enabled && [c.protocol, c.url]).toEqual(["grpc", "http://a:4317"]);
  });

  test("OTLP_DSN wins over the standard variables", () => {
    const c = resolveTracingConfig({ OTLP_DSN: "http://t@c:2345", OTEL_EXPORTER_OTLP_ENDPOINT: "http://a:4318" });
    expect(c.enabled && c.source).toBe("OTLP_DSN");
  });

  test("OTEL_SDK_DISABLED=true disables the standard path", () => {
    expect(resolveTracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://a:4318", OTEL_SDK_DISABLED: "true" }).enabled).toBe(false);
  });

  test("malformed standard variables throw OtelConfigError naming the variable and value", () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{ OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" }, 'OTEL_EXPORTER_OTLP_ENDPOINT="collector:4318"'],
      [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "ftp://x/v1/traces" }, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT="ftp://x/v1/traces"'],
      [{ OTEL_EXPORTER_OTLP_ENDPOINT: "http://a:4318", OTEL_EXPORTER_OTLP_PROTOCOL: "thrift" }, 'OTEL_EXPORTER_OTLP_PROTOCOL="thrift"'],
      [{ OTEL_EXPORTER_OTLP_ENDPOINT: "http://a:4318", OTEL_EXPORTER_OTLP_HEADERS: "novalue" }, 'OTEL_EXPORTER_OTLP_HEADERS="novalue"'],
    ];
    for (const [env, named] of cases) {
      let err: unknown;
      try {
        resolveTracingConfig(env);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(OtelConfigError);
      expect((err as Error).message).toContain(named);
    }
  });

  test("header keys are lower-cased, empty entries skipped", () => {
    expect(parseOtlpHeaders("X", "Authorization=Basic%20abc,,")).toEqual({ authorization: "Basic abc" });
  });
});
