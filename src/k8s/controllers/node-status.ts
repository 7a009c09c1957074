/**
 * The TinyNode status the module leader owns (runtime-spec §5.1 steps 5–8): `module`, `component`,
 * `ports`, `status`, `error`, `observedGeneration`, `lastUpdateTime`. `status.metadata` belongs to
 * the components (debounced StatusSink writes) and is never part of this write.
 * A write is due when an owned field other than `lastUpdateTime` differs, or when the last write is
 * older than the heartbeat interval (the Go leader rewrites `lastUpdateTime` on every 5-min requeue;
 * we keep that heartbeat but skip the no-op writes in between — docs/compatibility.md).
 */
import { isDeepStrictEqual } from "node:util";
import type { TinyNode, TinyNodeStatus } from "../../core/api/index.ts";
import { statusText } from "../status-text.ts";
import { statusPatch, type StatusPatch } from "../../runtime/runner/status-patch.ts";
import { messageOf } from "../../core/errors.ts";

/** The module identity written to `status.module` (runtime-spec §5.1 step 5). */
export interface ModuleInfo {
  /** Unsanitized module name, e.g. `tinysystems/common-module-v0`. */
  name: string;
  /** Module version (no leading `v`). */
  version: string;
  /** The Go SDK version whose behaviour we implement (src/core/version.ts `SDK_VERSION`; a Go module writes the SDK version it was built with). */
  sdkVersion: string;
}

/** The owned fields, as sent in the status merge patch. */
export type OwnedNodeStatus = Required<Pick<TinyNodeStatus, "module" | "component" | "ports" | "status" | "error" | "observedGeneration">> & {
  lastUpdateTime?: string;
};

/**
 * The status merge patch (RFC 7386) that writes `desired` at `at`; `error` follows Go's
 * `error,omitempty` rule (src/runtime/runner/status-patch.ts: `false` is sent as `null`).
 */
export type NodeStatusPatch = Omit<StatusPatch<OwnedNodeStatus>, "lastUpdateTime"> & { lastUpdateTime: string };

/** Builds the {@link NodeStatusPatch} for `desired`, stamped `lastUpdateTime` = `at`. */
export function nodeStatusPatch(desired: OwnedNodeStatus, at: Date): NodeStatusPatch {
  return { ...statusPatch(desired), lastUpdateTime: formatTime(at) };
}

/**
 * Formats `metav1.Time` as it travels: RFC 3339 in UTC with whole seconds (`2006-01-02T15:04:05Z`).
 */
export function formatTime(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, "Z");
}

/**
 * The owned status for `node` after a reconcile.
 * @param fromScheduler - what `Scheduler.update` reported, or undefined when it threw.
 * @param failure - the error `Scheduler.update` threw (its text becomes `status`, `error` = true).
 * Ports and component fall back to the node's current ones (then `[]` / empty strings, which the
 * CRD requires to be present — runtime-spec §16 item 27).
 */
export function ownedNodeStatus(node: TinyNode, module: ModuleInfo, fromScheduler: TinyNodeStatus | undefined, failure: unknown): OwnedNodeStatus {
  const current = node.status;
  const failed = failure !== undefined;
  return {
    module: { name: module.name, version: module.version, sdkVersion: module.sdkVersion },
    component: fromScheduler?.component ?? current?.component ?? { description: "", info: "" },
    ports: (fromScheduler?.ports ?? current?.ports ?? []) as OwnedNodeStatus["ports"],
    status: failed ? errorText(failure) : (fromScheduler?.status ?? "OK"),
    error: failed ? true : (fromScheduler?.error ?? false),
    observedGeneration: node.metadata.generation ?? 0,
  };
}

/** The failure's text, bounded (status-text.ts says why). */
function errorText(err: unknown): string {
  return statusText(messageOf(err));
}

/** True when an owned field other than `lastUpdateTime` differs from `current`. */
export function ownedStatusChanged(current: TinyNodeStatus | undefined, desired: OwnedNodeStatus): boolean {
  if (!current) return true;
  return (
    !isDeepStrictEqual(current.module, desired.module) ||
    !isDeepStrictEqual(current.component, desired.component) ||
    !isDeepStrictEqual(current.ports ?? [], desired.ports) ||
    (current.status ?? "") !== desired.status ||
    (current.error ?? false) !== desired.error ||
    (current.observedGeneration ?? 0) !== desired.observedGeneration
  );
}

/** True when `lastUpdateTime` is missing, unreadable, or at least `heartbeatMs` before `now`. */
export function heartbeatDue(current: TinyNodeStatus | undefined, now: Date, heartbeatMs: number): boolean {
  const last = current?.lastUpdateTime ? Date.parse(current.lastUpdateTime) : NaN;
  return Number.isNaN(last) || now.getTime() - last >= heartbeatMs;
}
