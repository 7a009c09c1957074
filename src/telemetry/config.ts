/**
 * Which trace exporter the environment asks for (runtime-spec §9.1, §13.2). A pure function of the
 * environment so every rule is testable without a collector.
 *
 * Precedence: `OTLP_DISABLED` (present, any value) or `OTEL_SDK_DISABLED=true` → off; else
 * `OTLP_DSN` → OTLP/gRPC to the DSN's host (Go's only path); else the standard
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` / `OTEL_EXPORTER_OTLP_ENDPOINT` → OTLP/HTTP JSON (or gRPC
 * when `OTEL_EXPORTER_OTLP[_TRACES]_PROTOCOL=grpc`); else off.
 * Go exits 1 when `OTLP_DSN` and `OTLP_DISABLED` are both set; we disable instead
 * (docs/compatibility.md, Telemetry).
 */
import { TinyError } from "../core/errors.ts";
import { parseOtlpDsn } from "./dsn.ts";

/** A rejected standard OTel variable. code `"OTEL_CONFIG_INVALID"`; names the variable and value. */
export class OtelConfigError extends TinyError {
  constructor(variable: string, value: string, reason: string) {
    super("OTEL_CONFIG_INVALID", `${variable}=${JSON.stringify(value)} is invalid: ${reason}`);
  }
}

/** Wire protocol of the trace exporter. */
export type OtlpProtocol = "grpc" | "http/json";

/** Tracing is off; `reason` is logged once at startup. */
export interface TracingOff {
  readonly enabled: false;
  readonly reason: string;
}

/** Tracing is on: where and how spans are exported. */
export interface TracingOn {
  readonly enabled: true;
  /** Which variable configured it (for the startup log line). */
  readonly source: "OTLP_DSN" | "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT" | "OTEL_EXPORTER_OTLP_ENDPOINT";
  readonly protocol: OtlpProtocol;
  /** gRPC: `http(s)://host:port`; HTTP: the full `/v1/traces` URL. */
  readonly url: string;
  /** gRPC: TLS with system roots. */
  readonly tls: boolean;
  /** Request headers / gRPC metadata (Go's DSN path: `origin-dsn: <DSN>`). */
  readonly headers: Readonly<Record<string, string>>;
  /** gzip request bodies (Go's DSN path compresses). */
  readonly gzip: boolean;
}

/** The resolved tracing configuration. */
export type TracingConfig = TracingOff | TracingOn;

/** Environment lookup (process.env shape). */
export type Env = Readonly<Record<string, string | undefined>>;

/**
 * Parses `OTEL_EXPORTER_OTLP_HEADERS` (`k1=v1,k2=v2`, values percent-decoded; W3C baggage-like
 * format of the OTel spec "Specify headers"). Entries without `=` are rejected.
 * @throws OtelConfigError naming `variable`.
 */
export function parseOtlpHeaders(variable: string, value: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!value) return out;
  for (const part of value.split(",")) {
    if (part.trim() === "") continue;
    const i = part.indexOf("=");
    if (i <= 0) throw new OtelConfigError(variable, value, `entry ${JSON.stringify(part.trim())} is not key=value`);
    let v: string;
    try {
      v = decodeURIComponent(part.slice(i + 1).trim());
    } catch {
      throw new OtelConfigError(variable, value, `entry ${JSON.stringify(part.trim())} has a malformed percent-encoding`);
    }
    out[part.slice(0, i).trim().toLowerCase()] = v;
  }
  return out;
}

function protocolOf(env: Env): OtlpProtocol {
  const name = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ? "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL" : "OTEL_EXPORTER_OTLP_PROTOCOL";
  const value = env[name];
  if (value === undefined || value === "") return "http/json";
  if (value === "grpc") return "grpc";
  // http/protobuf (the spec default) is sent as JSON: every OTLP/HTTP receiver accepts both encodings.
  if (value === "http/json" || value === "http/protobuf") return "http/json";
  throw new OtelConfigError(name, value, "expected grpc, http/protobuf or http/json");
}

function checkUrl(variable: string, value: string): URL {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw new OtelConfigError(variable, value, "not an absolute URL");
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") throw new OtelConfigError(variable, value, "scheme must be http or https");
  return u;
}

/**
 * Resolves the tracing configuration from `env` (see the module comment for precedence).
 * @throws OtlpDsnError for a rejected `OTLP_DSN`; OtelConfigError for a malformed standard variable.
 */
export function resolveTracingConfig(env: Env): TracingConfig {
  if (env.OTLP_DISABLED !== undefined) return { enabled: false, reason: "OTLP_DISABLED is set, telemetry disabled" };
  if ((env.OTEL_SDK_DISABLED ?? "").toLowerCase() === "true") return { enabled: false, reason: "OTEL_SDK_DISABLED=true, telemetry disabled" };
  const dsnText = env.OTLP_DSN;
  if (dsnText) {
    const dsn = parseOtlpDsn(dsnText);
    const tls = dsn.scheme === "https";
    return {
      enabled: true,
      source: "OTLP_DSN",
      protocol: "grpc",
      url: `${tls ? "https" : "http"}://${dsn.endpoint}`,
      tls,
      headers: { "origin-dsn": dsn.original },
      gzip: true,
    };
  }
  const tracesEndpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  const endpoint = env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!tracesEndpoint && !endpoint) return { enabled: false, reason: "OTLP_DSN not set, telemetry disabled" };
  const protocol = protocolOf(env);
  const headers = {
    ...parseOtlpHeaders("OTEL_EXPORTER_OTLP_HEADERS", env.OTEL_EXPORTER_OTLP_HEADERS),
    ...parseOtlpHeaders("OTEL_EXPORTER_OTLP_TRACES_HEADERS", env.OTEL_EXPORTER_OTLP_TRACES_HEADERS),
  };
  const gzip = (env.OTEL_EXPORTER_OTLP_TRACES_COMPRESSION ?? env.OTEL_EXPORTER_OTLP_COMPRESSION) === "gzip";
  if (tracesEndpoint) {
    const u = checkUrl("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", tracesEndpoint);
    // The per-signal endpoint is used as is (OTel spec "Endpoint URLs for OTLP/HTTP").
    return { enabled: true, source: "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", protocol, url: tracesEndpoint, tls: u.protocol === "https:", headers, gzip };
  }
  const u = checkUrl("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint!);
  // The base endpoint gets `v1/traces` appended for HTTP; gRPC takes it as the target.
  const url = protocol === "grpc" ? endpoint! : `${endpoint!.replace(/\/+$/, "")}/v1/traces`;
  return { enabled: true, source: "OTEL_EXPORTER_OTLP_ENDPOINT", protocol, url, tls: u.protocol === "https:", headers, gzip };
}
