/**
 * Connecting to NATS with the Go module's options (runtime-spec §4.1, §13.1 `cli/nats.go`): client
 * name "tiny-module", connect timeout 5 s, reconnect wait 2 s, unlimited reconnects; credentials in
 * the URL as nats.go reads them (nats.js ignores a URL's user info).
 */
import { connect, type NatsConnection } from "@nats-io/transport-node";

/** Client name the Go module announces (runtime-spec §4.1). */
export const NATS_CLIENT_NAME = "tiny-module";
/** Connect timeout, ms (runtime-spec §13.1). */
export const NATS_CONNECT_TIMEOUT_MS = 5000;
/** Wait between reconnect attempts, ms (runtime-spec §13.1). */
export const NATS_RECONNECT_WAIT_MS = 2000;

/** Overrides for tests; production uses the defaults. */
export interface ConnectNatsOptions {
  /** Client name; default {@link NATS_CLIENT_NAME}. */
  name?: string;
  /** Reconnect wait, ms; default {@link NATS_RECONNECT_WAIT_MS}. */
  reconnectTimeWaitMs?: number;
}

/** Servers of a NATS URL list without their user info, and the credentials it carried. */
export interface NatsUrlAuth {
  servers: string[];
  /** `nats://<token>@host` (user info without a password). */
  token?: string;
  /** `nats://<user>:<pass>@host`. */
  user?: string;
  pass?: string;
}

/**
 * Splits `url` (comma-separated) into servers and credentials as nats.go does: user info with a
 * password is user + password, without one it is a token (percent-decoded). The first server that
 * carries credentials gives them (the chart and provision write one URL, `nats://$(NATS_TOKEN)@…`).
 * Without this the provisioned broker's token auth refuses the module ("Authorization Violation")
 * and it falls back to gRPC: a difference a real pod showed (test/integration/real-faults.test.ts).
 */
export function natsUrlAuth(url: string): NatsUrlAuth {
  const out: NatsUrlAuth = { servers: [] };
  for (const raw of url
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)) {
    const at = raw.lastIndexOf("@");
    const scheme = raw.indexOf("://");
    if (at < 0 || (scheme >= 0 && at < scheme)) {
      out.servers.push(raw);
      continue;
    }
    const start = scheme >= 0 ? scheme + 3 : 0;
    const info = raw.slice(start, at);
    out.servers.push(raw.slice(0, start) + raw.slice(at + 1));
    if (out.token !== undefined || out.user !== undefined || info === "") continue;
    const colon = info.indexOf(":");
    if (colon < 0) out.token = decodeURIComponent(info);
    else {
      out.user = decodeURIComponent(info.slice(0, colon));
      out.pass = decodeURIComponent(info.slice(colon + 1));
    }
  }
  return out;
}

/**
 * Opens a connection to `url` (comma-separated list allowed) that reconnects forever; credentials
 * in the URLs are sent as nats.go sends them ({@link natsUrlAuth}).
 * @throws the nats.js connection error when the first connect fails within 5 s (the caller falls back to gRPC, runtime-spec §4.1).
 */
export function connectNats(url: string, opts: ConnectNatsOptions = {}): Promise<NatsConnection> {
  const { servers, token, user, pass } = natsUrlAuth(url);
  return connect({
    servers,
    ...(token !== undefined ? { token } : {}),
    ...(user !== undefined ? { user, pass } : {}),
    name: opts.name ?? NATS_CLIENT_NAME,
    timeout: NATS_CONNECT_TIMEOUT_MS,
    reconnectTimeWait: opts.reconnectTimeWaitMs ?? NATS_RECONNECT_WAIT_MS,
    maxReconnectAttempts: -1,
  });
}
