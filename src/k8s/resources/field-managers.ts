/**
 * Who wrote an entry, read from `metadata.managedFields`, to name the owner in a conflict error.
 * Service `spec.ports` is a map list keyed by `port` + `protocol`, so each entry has its own
 * owners (`f:spec` → `f:ports` → `k:{"port":80,"protocol":"TCP"}`). Rule: Kubernetes docs
 * "Server-Side Apply › Field management"; core/v1 ServiceSpec `+listMapKey=port,protocol`.
 */
import type { ManagedFieldsEntry } from "../client/index.ts";

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Names of the field managers that own the Service port entry `port/protocol`, e.g.
 * `["helm (Update)", "tinyhost (Apply)"]`, in managedFields order; empty when none is recorded.
 * @param managedFields - the Service's `metadata.managedFields`.
 * @param port - port number. @param protocol - `TCP` when absent.
 */
export function servicePortManagers(managedFields: readonly ManagedFieldsEntry[] | undefined, port: number, protocol = "TCP"): string[] {
  const out: string[] = [];
  for (const entry of managedFields ?? []) {
    const spec = entry.fieldsV1?.["f:spec"];
    const ports = isObject(spec) ? spec["f:ports"] : undefined;
    if (!isObject(ports)) continue;
    const owns = Object.keys(ports).some((key) => {
      if (!key.startsWith("k:")) return false;
      try {
        const k = JSON.parse(key.slice(2)) as { port?: unknown; protocol?: unknown };
        return k.port === port && (k.protocol ?? "TCP") === protocol;
      } catch {
        return false;
      }
    });
    if (owns) out.push(`${entry.manager ?? "(unnamed)"} (${entry.operation ?? "?"})`);
  }
  return out;
}
