/**
 * The read side of stage 2 (kube-rs `reflector::Store`, client-go `cache.Indexer`): the latest
 * known state of every watched object, keyed by `namespace/name`. Controllers read from it instead
 * of calling the API; only the reflector writes to it.
 */
import type { KubeObject } from "../client/types.ts";
import { objectKey } from "./source.ts";

/** A read-only view of watched objects. */
export interface Store<T extends KubeObject> {
  /** The object under `key` (`namespace/name`, or `name` when cluster-scoped), if known. */
  get(key: string): T | undefined;
  /** The object by namespace and name. */
  getByName(name: string, namespace?: string): T | undefined;
  /** Every object, optionally only one namespace's. Order is unspecified. */
  list(namespace?: string): T[];
  /** Every key. */
  keys(): string[];
  /** Number of objects. */
  readonly size: number;
  /** True once the first full list has been applied. */
  readonly synced: boolean;
  /** Resolves when the first full list has been applied (resolves at once if already). */
  whenSynced(): Promise<void>;
}

/** The writable store the reflector owns. */
export class ObjectStore<T extends KubeObject> implements Store<T> {
  readonly #objects = new Map<string, T>();
  #synced = false;
  #markSynced!: () => void;
  readonly #syncedPromise = new Promise<void>((resolve) => (this.#markSynced = resolve));

  /** @inheritdoc */
  get(key: string): T | undefined {
    return this.#objects.get(key);
  }

  /** @inheritdoc */
  getByName(name: string, namespace?: string): T | undefined {
    return this.#objects.get(namespace ? `${namespace}/${name}` : name);
  }

  /** @inheritdoc */
  list(namespace?: string): T[] {
    const all = [...this.#objects.values()];
    return namespace === undefined ? all : all.filter((o) => o.metadata.namespace === namespace);
  }

  /** @inheritdoc */
  keys(): string[] {
    return [...this.#objects.keys()];
  }

  /** @inheritdoc */
  get size(): number {
    return this.#objects.size;
  }

  /** @inheritdoc */
  get synced(): boolean {
    return this.#synced;
  }

  /** @inheritdoc */
  whenSynced(): Promise<void> {
    return this.#syncedPromise;
  }

  /** Stores `obj` under its key; returns the previous value. */
  apply(obj: T): T | undefined {
    const key = objectKey(obj);
    const old = this.#objects.get(key);
    this.#objects.set(key, obj);
    return old;
  }

  /** Removes the object under `obj`'s key; returns what was stored. */
  remove(obj: T): T | undefined {
    const key = objectKey(obj);
    const old = this.#objects.get(key);
    this.#objects.delete(key);
    return old;
  }

  /** Marks the store synced (idempotent). */
  markSynced(): void {
    if (this.#synced) return;
    this.#synced = true;
    this.#markSynced();
  }
}
