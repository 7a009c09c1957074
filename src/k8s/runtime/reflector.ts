/**
 * Stage 2 of the watch pipeline (kube-rs `reflector`): applies watcher events to an
 * {@link ObjectStore} and passes on what changed. A `restarted` list is reconciled against the
 * store: objects missing from it become `deleted` (their final state unknown — they went away while
 * the watch was down), objects with a new resourceVersion become `applied`, unchanged ones produce
 * nothing. The store is fully updated before any change of a batch is passed on, so a consumer
 * reading the store sees the new list, never half of it.
 */
import type { KubeObject } from "../client/types.ts";
import { objectKey } from "./source.ts";
import { ObjectStore } from "./store.ts";
import type { WatcherEvent } from "./watcher.ts";

/**
 * A change to the store.
 * - `applied`: `object` is new (`old` undefined) or replaced `old`.
 * - `deleted`: `object` is the last state; `finalStateUnknown` when the deletion was inferred from a
 *   relist (client-go `DeletedFinalStateUnknown`) rather than seen as a DELETED event.
 */
export type ChangeEvent<T extends KubeObject> =
  | { type: "applied"; key: string; object: T; old: T | undefined }
  | { type: "deleted"; key: string; object: T; finalStateUnknown: boolean };

/**
 * Runs the reflector stage.
 * @param store - the store to keep current (marked synced after the first list).
 * @param events - a watcher's event stream.
 * @returns the changes, in the order they were applied.
 */
export async function* reflector<T extends KubeObject>(store: ObjectStore<T>, events: AsyncIterable<WatcherEvent<T>>): AsyncGenerator<ChangeEvent<T>> {
  for await (const ev of events) {
    if (ev.type === "restarted") {
      const changes = reconcileList(store, ev.objects);
      store.markSynced();
      yield* changes;
    } else if (ev.type === "applied") {
      const old = store.apply(ev.object);
      if (old && old.metadata.resourceVersion === ev.object.metadata.resourceVersion) continue;
      yield { type: "applied", key: objectKey(ev.object), object: ev.object, old };
    } else {
      const old = store.remove(ev.object);
      yield { type: "deleted", key: objectKey(ev.object), object: ev.object ?? old, finalStateUnknown: false };
    }
  }
}

/** Makes the store equal to `objects` and returns the differences (deletions first). */
function reconcileList<T extends KubeObject>(store: ObjectStore<T>, objects: T[]): ChangeEvent<T>[] {
  const seen = new Set<string>();
  const applied: ChangeEvent<T>[] = [];
  for (const object of objects) {
    const key = objectKey(object);
    seen.add(key);
    const old = store.get(key);
    if (old && old.metadata.resourceVersion === object.metadata.resourceVersion) continue;
    store.apply(object);
    applied.push({ type: "applied", key, object, old });
  }
  const deleted: ChangeEvent<T>[] = [];
  for (const key of store.keys()) {
    if (seen.has(key)) continue;
    const object = store.get(key)!;
    store.remove(object);
    deleted.push({ type: "deleted", key, object, finalStateUnknown: true });
  }
  return [...deleted, ...applied];
}
