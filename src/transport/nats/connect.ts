/**
 * Connecting to NATS with the Go module's options (runtime-spec §4.1, §13.1 `cli/nats.go`): client
 * name "tiny-module", connect timeout 5 s, reconnect wait 2 s, unlimited reconnects.
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

/** The servers of a NATS URL list and the credentials its URLs carry, as nats.js takes them. */
export interface NatsServers {
  /** The URLs without user-info. */
  servers: string[];
  /** `nats://<token>@host` (a user without a password), as Go's nats.go reads it. */
  token?: string;
  /** `nats://<user>:<pass>@host`. */
  user?: string;
  pass?: string;
}

/**
 * Splits `url` (comma-separated) into servers and credentials. nats.js ignores the user-info of a
 * server URL, so `nats://<token>@host` — the broker URL `tinyhost provision` and `tiny` give a module —
 * was refused (Authorization Violation) where Go's nats.go sends the token; the first URL with
 * user-info gives the credentials (nats.go: a user alone is a token, user:pass a user and password).
 * A URL that does not parse is passed on as given (nats.js reports it).
 */
export function natsServers(url: string): NatsServers {
  const out: NatsServers = { servers: [] };
  let found = false;
  for (const raw of url.split(",").map((s) => s.trim())) {
    if (raw === "") continue;
    let u: URL;
    try {
      u = new URL(raw.includes("://") ? raw : `nats://${raw}`);
    } catch {
      out.servers.push(raw);
      continue;
    }
    if (u.username === "" && u.password === "") {
      out.servers.push(raw);
      continue;
    }
    if (!found) {
      found = true;
      if (u.password === "") out.token = decodeURIComponent(u.username);
      else [out.user, out.pass] = [decodeURIComponent(u.username), decodeURIComponent(u.password)];
    }
    u.username = "";
    u.password = "";
    out.servers.push(raw.includes("://") ? u.toString().replace(/\/$/, "") : u.host);
  }
  return out;
}

/**
 * Opens a connection to `url` (comma-separated list allowed) that reconnects forever; credentials
 * in the URLs are sent as nats.go sends them ({@link natsServers}).
 * @throws the nats.js connection error when the first connect fails within 5 s (the caller falls back to gRPC, runtime-spec §4.1).
 */
export function connectNats(url: string, opts: ConnectNatsOptions = {}): Promise<NatsConnection> {
  const { servers, token, user, pass } = natsServers(url);
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
