/**
 * Event filters for a controller, as plain functions (controller-runtime `pkg/predicate`): a change
 * passes when the predicate returns true; a controller with several predicates needs all of them.
 */
import { isDeepStrictEqual } from "node:util";
import type { KubeObject } from "../client/types.ts";
import type { ChangeEvent } from "./reflector.ts";

/** Decides whether a store change should queue a reconcile. */
export type Predicate<T extends KubeObject> = (change: ChangeEvent<T>) => boolean;

/**
 * Update passes only when `metadata.generation` changed (spec edits; status-only writes are
 * skipped). Creates and deletes always pass. Rule: controller-runtime `GenerationChangedPredicate`.
 */
export function generationChanged<T extends KubeObject>(change: ChangeEvent<T>): boolean {
  if (change.type === "deleted" || change.old === undefined) return true;
  return change.old.metadata.generation !== change.object.metadata.generation;
}

/**
 * TinyNode's filter (runtime-spec §5.1 `GenerationOrMetadataChangedPredicate`): create and delete
 * pass; an update passes when `metadata.generation` changed or `status.metadata` is not deep-equal.
 * Difference (docs/compatibility.md): a deletion inferred from a relist passes too, where the Go
 * predicate drops `DeleteStateUnknown` — otherwise such a node's reconcile would never run.
 */
export function generationOrStatusMetadataChanged<T extends KubeObject & { status?: { metadata?: unknown } }>(change: ChangeEvent<T>): boolean {
  if (change.type === "deleted" || change.old === undefined) return true;
  if (change.old.metadata.generation !== change.object.metadata.generation) return true;
  return !isDeepStrictEqual(change.old.status?.metadata, change.object.status?.metadata);
}
