/**
 * `OTLP_DSN` parsing (runtime-spec §9.1, Go pkg/metrics/dsn.go): `scheme://token@host[:port]`.
 * The DSN names the platform collector's OTLP/gRPC endpoint (the chart sets
 * `http://token@tinysystems-otel-collector:2345`, provision.md §5.4).
 */
import { TinyError } from "../core/errors.ts";

/** Port used when the DSN names none — Go's default, kept for parity (runtime-spec §9.1). */
export const OTLP_DSN_DEFAULT_PORT = "413";

/** A rejected `OTLP_DSN`. code `"OTLP_DSN_INVALID"`; the message names the variable and the value. */
export class OtlpDsnError extends TinyError {
  constructor(
    readonly value: string,
    reason: string,
  ) {
    super("OTLP_DSN_INVALID", `OTLP_DSN=${JSON.stringify(value)} is invalid: ${reason} (expected scheme://token@host[:port])`);
  }
}

/** A parsed DSN. */
export interface OtlpDsn {
  /** The DSN as given; Go sends it as the `origin-dsn` gRPC header. */
  readonly original: string;
  /** `http`, `https`, … (`https` → TLS with system roots, anything else → plaintext). */
  readonly scheme: string;
  /** Host name or IP (IPv6 without brackets). */
  readonly host: string;
  /** gRPC port, default {@link OTLP_DSN_DEFAULT_PORT}. */
  readonly port: string;
  /** The user part of the DSN. */
  readonly token: string;
  /** `host:port` (IPv6 bracketed) — the gRPC target. */
  readonly endpoint: string;
}

/**
 * Parses `OTLP_DSN` (runtime-spec §9.1). Rejected: unparseable text, no scheme, no host, no token,
 * the placeholder token `<token>`, and a host ending in `:14318` (an OTLP/HTTP port, the DSN names
 * the gRPC one).
 * @throws OtlpDsnError naming the variable, the value and the reason.
 */
export function parseOtlpDsn(value: string): OtlpDsn {
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^@/?#]*)@([^/?#]*)(?:[/?#].*)?$/.exec(value);
  if (!m) {
    if (!/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(value)) throw new OtlpDsnError(value, "it has no scheme");
    if (!/^[^:]+:\/\/[^/?#]*@/.test(value)) throw new OtlpDsnError(value, "it has no token (user part)");
    throw new OtlpDsnError(value, "it cannot be parsed");
  }
  const scheme = m[1]!.toLowerCase();
  const user = m[2]!;
  const hostPort = m[3]!;
  const token = decodeURIComponent(user.split(":")[0]!);
  if (token === "") throw new OtlpDsnError(value, "it has no token (user part)");
  if (token === "<token>") throw new OtlpDsnError(value, "the token is the placeholder <token>");
  if (hostPort === "") throw new OtlpDsnError(value, "it has no host");
  if (hostPort.endsWith(":14318")) throw new OtlpDsnError(value, "port 14318 is an OTLP/HTTP port; the DSN must name the OTLP/gRPC port");
  let host = hostPort;
  let port = "";
  const v6 = /^\[([^\]]+)\](?::(\d*))?$/.exec(hostPort);
  if (v6) {
    host = v6[1]!;
    port = v6[2] ?? "";
  } else {
    const i = hostPort.lastIndexOf(":");
    if (i >= 0) {
      host = hostPort.slice(0, i);
      port = hostPort.slice(i + 1);
      if (host.includes(":")) throw new OtlpDsnError(value, "an IPv6 host must be in brackets");
    }
  }
  if (host === "") throw new OtlpDsnError(value, "it has no host");
  if (port !== "" && !/^\d{1,5}$/.test(port)) throw new OtlpDsnError(value, `port ${JSON.stringify(port)} is not a number`);
  if (port !== "" && (Number(port) < 1 || Number(port) > 65535)) throw new OtlpDsnError(value, `port ${port} is outside 1-65535`);
  if (scheme !== "http" && scheme !== "https") {
    // Go takes any scheme and only asks "is it https?"; an ftp:// DSN is a typo, say so.
    throw new OtlpDsnError(value, `scheme ${JSON.stringify(scheme)} is not http or https (https = TLS)`);
  }
  if (port === "") port = OTLP_DSN_DEFAULT_PORT;
  const endpoint = host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
  try {
    new URL(`http://${endpoint}`);
  } catch {
    throw new OtlpDsnError(value, `host ${JSON.stringify(host)} is not a valid host name or address`);
  }
  return { original: value, scheme, host, port, token, endpoint };
}
