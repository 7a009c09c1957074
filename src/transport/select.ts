/**
 * Which wire a module runs on, from the environment (runtime-spec §4.1, §13.2, §16 item 16):
 * `TINY_NATS_URL` set → core NATS; plus `TINY_NATS_TRANSPORT=jetstream` → JetStream; no URL → gRPC.
 * Any other `TINY_NATS_TRANSPORT` value (unset, "core", a typo) means core, as in Go.
 */

/** The transport the run command builds. */
export type TransportSelection = { kind: "core"; natsUrl: string } | { kind: "jetstream"; natsUrl: string } | { kind: "grpc" };

/** Env variable holding the NATS URL (runtime-spec §13.2). */
export const ENV_NATS_URL = "TINY_NATS_URL";
/** Env variable choosing JetStream (runtime-spec §13.2). */
export const ENV_NATS_TRANSPORT = "TINY_NATS_TRANSPORT";

/** Reads the selection from `env` (default `process.env`). Pure: connecting is the caller's job. */
export function selectTransport(env: Record<string, string | undefined> = process.env): TransportSelection {
  const url = (env[ENV_NATS_URL] ?? "").trim();
  if (url === "") return { kind: "grpc" };
  if (env[ENV_NATS_TRANSPORT] === "jetstream") return { kind: "jetstream", natsUrl: url };
  return { kind: "core", natsUrl: url };
}
