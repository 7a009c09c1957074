/**
 * Listening on a Go-style bind address (`:8081`, `127.0.0.1:8080`, `[::1]:9000`, `:0`) with
 * `Bun.serve`. The address syntax is the controller-runtime flag's (`--health-probe-bind-address`,
 * `--metrics-bind-address`; runtime-spec §9); `"0"` means "do not serve", as controller-runtime's
 * metrics flag.
 */
import type { Hono } from "hono";
import { TinyError } from "../core/errors.ts";

/** A bind address that is not `[host]:port` with a port 0–65535. */
export class BindAddressError extends TinyError<"BIND_ADDRESS"> {
  /** @param flag - the flag or field name. @param value - the rejected value. */
  constructor(flag: string, value: string) {
    super("BIND_ADDRESS", `${flag} = ${JSON.stringify(value)} is not "[host]:port" with a port 0-65535 (or "0" to disable)`);
    this.name = "BindAddressError";
  }
}

/** A parsed bind address; `hostname` is `0.0.0.0` for an empty host (all interfaces). */
export interface BindAddress {
  hostname: string;
  port: number;
}

/**
 * Parses a bind address.
 * @returns undefined for `"0"` (disabled).
 * @throws BindAddressError naming `flag` and the value.
 */
export function parseBindAddress(value: string, flag = "bind address"): BindAddress | undefined {
  if (value === "0") return undefined;
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:\s[\]]*):(\d{1,5})$/.exec(value);
  const port = m ? Number(m[2]) : NaN;
  if (!m || !(port <= 65535)) throw new BindAddressError(flag, value);
  const host = m[1] ?? "";
  return { hostname: host === "" ? "0.0.0.0" : host.replace(/^\[|\]$/g, ""), port };
}

/** A running listener. */
export interface HttpListener {
  /** The bound port (useful with `:0`). */
  readonly port: number;
  /** `http://host:port` for local requests. */
  readonly url: string;
  /** Stops listening; open connections are closed. */
  stop(): Promise<void>;
}

/**
 * Serves `app` on `address`. Bun closes requests idle for 10 s by default; probes are short, so the
 * default stays.
 * @throws the bind error (e.g. EADDRINUSE) from Bun.serve.
 */
export function listen(app: Hono, address: BindAddress): HttpListener {
  const server = Bun.serve({ hostname: address.hostname, port: address.port, fetch: app.fetch });
  const port = server.port ?? address.port;
  const host = address.hostname === "0.0.0.0" || address.hostname === "::" ? "127.0.0.1" : address.hostname;
  return {
    port,
    url: `http://${host.includes(":") ? `[${host}]` : host}:${port}`,
    stop: () => server.stop(true),
  };
}
