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

/** The servers of `url` without credentials, and the credentials of the first that carries some. */
export interface NatsUrlAuth {
  servers: string[];
  /** `nats://<token>@host` (a user name without a password): Go's nats.go sends it as the token. */
  token?: string;
  /** `nats://<user>:<pass>@host`. */
  user?: string;
  pass?: string;
}

/**
 * Splits credentials off a (comma-separated) NATS URL as Go's nats.go reads them: a user name alone
 * is a token, a user with a password is user/password. nats.js does not read a token from a URL
 * (it sends the user name as a user and the server refuses it), so `TINY_NATS_URL` as the chart and
 * `provision` write it (`nats://$(NATS_TOKEN)@…`) needs this. Percent-encoding is decoded.
 */
export function natsUrlAuth(url: string): NatsUrlAuth {
  const out: NatsUrlAuth = { servers: [] };
  for (const raw of url
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)) {
    const m = /^([a-z]+:\/\/)?([^@/]*)@(.*)$/i.exec(raw);
    if (!m) {
      out.servers.push(raw);
      continue;
    }
    out.servers.push(`${m[1] ?? ""}${m[3]}`);
    if (out.token !== undefined || out.user !== undefined) continue;
    const [user, pass] = m[2]!.split(":", 2) as [string, string | undefined];
    if (pass === undefined) out.token = decodeURIComponent(user);
    else {
      out.user = decodeURIComponent(user);
      out.pass = decodeURIComponent(pass);
    }
  }
  return out;
}

/**
 * Opens a connection to `url` (comma-separated list allowed; credentials as {@link natsUrlAuth}
 * reads them) that reconnects forever.
 * @throws the nats.js connection error when the first connect fails within 5 s (the caller falls back to gRPC, runtime-spec §4.1).
 */
export function connectNats(url: string, opts: ConnectNatsOptions = {}): Promise<NatsConnection> {
  const auth = natsUrlAuth(url);
  return connect({
    servers: auth.servers,
    ...(auth.token !== undefined ? { token: auth.token } : {}),
    ...(auth.user !== undefined ? { user: auth.user, pass: auth.pass ?? "" } : {}),
    name: opts.name ?? NATS_CLIENT_NAME,
    timeout: NATS_CONNECT_TIMEOUT_MS,
    reconnectTimeWait: opts.reconnectTimeWaitMs ?? NATS_RECONNECT_WAIT_MS,
    maxReconnectAttempts: -1,
  });
}
