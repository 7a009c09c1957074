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

/**
 * Opens a connection to `url` (comma-separated list allowed) that reconnects forever.
 * @throws the nats.js connection error when the first connect fails within 5 s (the caller falls back to gRPC, runtime-spec §4.1).
 */
export function connectNats(url: string, opts: ConnectNatsOptions = {}): Promise<NatsConnection> {
  return connect({
    servers: url
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean),
    name: opts.name ?? NATS_CLIENT_NAME,
    timeout: NATS_CONNECT_TIMEOUT_MS,
    reconnectTimeWait: opts.reconnectTimeWaitMs ?? NATS_RECONNECT_WAIT_MS,
    maxReconnectAttempts: -1,
  });
}
