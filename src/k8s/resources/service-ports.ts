/**
 * Pure edits of the release Service's port list for exposePort/disclosePort (runtime-spec §7.1
 * step 5, §7.2). They never mutate their input and return an equal list when nothing changes,
 * so callers can skip the write.
 */
import type { ServicePort } from "../client/index.ts";

/**
 * The name exposePort gives a Service port: `port<N>` (runtime-spec §7.1 step 5).
 * @param port - port number.
 */
export function servicePortName(port: number): string {
  return `port${port}`;
}

/**
 * Adds `{name: "port<N>", port: N, targetPort: N}` unless a port with number N is already present
 * (whatever its name — the Go rule). runtime-spec §7.1 step 5.
 * @param ports - the Service's current `spec.ports` (absent = none).
 * @param port - port number, already validated.
 * @returns a new list; equal to the input when N was present.
 */
export function withServicePort(ports: readonly ServicePort[] | undefined, port: number): ServicePort[] {
  const current = [...(ports ?? [])];
  if (current.some((p) => p.port === port)) return current;
  return [...current, { name: servicePortName(port), port, targetPort: port }];
}

/**
 * Removes every port whose number is N, keeping all others in order. runtime-spec §7.2.
 * @param ports - the Service's current `spec.ports`.
 * @param port - port number.
 */
export function withoutServicePort(ports: readonly ServicePort[] | undefined, port: number): ServicePort[] {
  return (ports ?? []).filter((p) => p.port !== port);
}
