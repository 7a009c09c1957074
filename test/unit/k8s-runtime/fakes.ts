/**
 * Fakes for the runtime unit tests: a hand-driven clock, an in-memory collection that lists and
 * watches like the apiserver (versions, bookmarks, 410 after compaction, cut connections), and an
 * in-memory Lease with compare-and-swap.
 */
import { KubeApiError, KubeConnectionError } from "../../../src/k8s/client/errors.ts";
import type { Lease } from "../../../src/k8s/client/resources.ts";
import type { KubeList, KubeObject, WatchEvent } from "../../../src/k8s/client/types.ts";
import type { Clock } from "../../../src/k8s/runtime/clock.ts";
import type { LeaseLock } from "../../../src/k8s/runtime/leader/lock.ts";
import type { ListPageOptions, WatchRequestOptions, WatchSource } from "../../../src/k8s/runtime/source.ts";

/** Lets every pending promise chain and macrotask run. */
export async function settle(rounds = 20): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise((r) => setImmediate(r));
}

interface Timer {
  due: number;
  resolve: () => void;
}

/** A clock that moves only when the test calls {@link FakeClock.advance}. */
export class FakeClock implements Clock {
  t = 0;
  readonly wallOrigin = Date.parse("2026-01-01T00:00:00.000Z");
  readonly timers = new Set<Timer>();

  now(): number {
    return this.t;
  }

  wallNow(): Date {
    return new Date(this.wallOrigin + this.t);
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const timer: Timer = {
        due: this.t + Math.max(0, ms),
        resolve: () => {
          this.timers.delete(timer);
          resolve();
        },
      };
      this.timers.add(timer);
      signal?.addEventListener("abort", () => timer.resolve(), { once: true });
    });
  }

  /** Moves time forward by `ms`, firing timers in due order and letting their effects run. */
  async advance(ms: number): Promise<void> {
    const end = this.t + ms;
    await settle();
    for (;;) {
      let next: Timer | undefined;
      for (const timer of this.timers) if (timer.due <= end && (!next || timer.due < next.due)) next = timer;
      if (!next) break;
      this.t = Math.max(this.t, next.due);
      next.resolve();
      await settle();
    }
    this.t = end;
    await settle();
  }

  /** Advances in steps of `stepMs` until `cond()` holds or `maxMs` passed; returns the time taken. */
  async advanceUntil(cond: () => boolean, maxMs: number, stepMs = 10): Promise<number> {
    const start = this.t;
    while (!cond() && this.t - start < maxMs) await this.advance(stepMs);
    return this.t - start;
  }
}

/** A ConfigMap-like object. */
export interface Item extends KubeObject {
  data?: Record<string, string>;
}

type Waiter = () => void;

/** One namespace's collection, served like the apiserver's list and watch. */
export class FakeCollection implements WatchSource<Item> {
  rv = 100;
  readonly objects = new Map<string, Item>();
  /** Every change with its version, oldest first; entries at or below `compactedRv` are forgotten. */
  readonly history: { rv: number; event: WatchEvent<Item> }[] = [];
  compactedRv = 0;
  /** Versions the watch calls started from, in order. */
  readonly watchCalls: string[] = [];
  readonly listCalls: ListPageOptions[] = [];
  /** Make the next N list calls fail with a connection error. */
  failLists = 0;
  /** Make every watch end at once without events (a server that closes immediately). */
  closeWatchesAtOnce = false;
  /** Send no events at all to watches (silence). */
  mute = false;
  #waiters = new Set<Waiter>();
  #cuts = new Set<Waiter>();
  readonly #ns = "ns";

  put(name: string, data: Record<string, string>): Item {
    const rv = String(++this.rv);
    const old = this.objects.get(name);
    const obj: Item = { metadata: { name, namespace: this.#ns, resourceVersion: rv }, data };
    this.objects.set(name, obj);
    this.#record(Number(rv), { type: old ? "MODIFIED" : "ADDED", object: obj });
    return obj;
  }

  remove(name: string): void {
    const old = this.objects.get(name);
    if (!old) throw new Error(`no ${name}`);
    this.objects.delete(name);
    const rv = ++this.rv;
    this.#record(rv, { type: "DELETED", object: { ...old, metadata: { ...old.metadata, resourceVersion: String(rv) } } });
  }

  /** A BOOKMARK at the current version. */
  bookmark(): void {
    this.#record(this.rv, { type: "BOOKMARK", object: { metadata: { resourceVersion: String(this.rv) } } });
  }

  /** An ERROR event with a non-410 Status on open watches. */
  errorEvent(code: number, message: string): void {
    this.#record(this.rv, { type: "ERROR", object: { kind: "Status", status: "Failure", code, message } });
  }

  /** Forgets history up to now and drops open watches: watches from older versions get 410 Gone. */
  compact(): void {
    this.cut();
    this.compactedRv = this.rv;
    this.history.length = 0;
  }

  /** Ends every open watch stream (a dropped connection). */
  cut(): void {
    for (const cut of [...this.#cuts]) cut();
  }

  async list(opts: ListPageOptions): Promise<KubeList<Item>> {
    this.listCalls.push(opts);
    if (this.failLists > 0) {
      this.failLists--;
      throw new KubeConnectionError("https://fake", "GET /api/v1/configmaps", new Error("connection refused"));
    }
    const all = [...this.objects.values()].sort((a, b) => a.metadata.name!.localeCompare(b.metadata.name!));
    const start = opts.continue ? Number(opts.continue) : 0;
    const end = opts.limit ? start + opts.limit : all.length;
    return {
      items: all.slice(start, end),
      metadata: { resourceVersion: String(this.rv), ...(end < all.length ? { continue: String(end) } : {}) },
    };
  }

  watch(opts: WatchRequestOptions): AsyncIterable<WatchEvent<Item>> {
    this.watchCalls.push(opts.resourceVersion);
    return this.#stream(opts);
  }

  async *#stream(opts: WatchRequestOptions): AsyncGenerator<WatchEvent<Item>> {
    const from = Number(opts.resourceVersion);
    if (from < this.compactedRv) {
      throw new KubeApiError({ verb: "WATCH", path: "/api/v1/configmaps", status: 410, reason: "Gone" });
    }
    if (this.closeWatchesAtOnce) return;
    let cut = false;
    let wake: Waiter = () => {};
    const onCut = () => {
      cut = true;
      wake();
    };
    const onAbort = () => wake();
    this.#cuts.add(onCut);
    opts.signal.addEventListener("abort", onAbort);
    let next = 0; // index into history
    try {
      for (;;) {
        if (cut || opts.signal.aborted) return;
        const h = this.history[next];
        if (h) {
          next++;
          if (this.mute) continue;
          if (h.event.type === "BOOKMARK" || h.event.type === "ERROR" ? h.rv >= from : h.rv > from) yield h.event;
          continue;
        }
        await new Promise<void>((resolve) => {
          wake = resolve;
          this.#waiters.add(resolve);
        });
      }
    } finally {
      this.#cuts.delete(onCut);
      opts.signal.removeEventListener("abort", onAbort);
    }
  }

  #record(rv: number, event: WatchEvent<Item>): void {
    this.history.push({ rv, event });
    for (const w of [...this.#waiters]) {
      this.#waiters.delete(w);
      w();
    }
  }
}

/** An in-memory Lease store shared by several candidates: compare-and-swap on resourceVersion. */
export class FakeLeaseServer {
  lease: Lease | undefined;
  rv = 1;
  /** Clock time of every successful write. */
  readonly writeTimes: number[] = [];
  /** Identities whose requests fail at once (connection refused). */
  readonly unreachable = new Set<string>();
  /** Identities whose requests never answer (a black-holed network); they end only when aborted. */
  readonly hanging = new Set<string>();

  constructor(readonly clock: Clock) {}

  lockFor(identity: string): LeaseLock {
    const reach = async (signal?: AbortSignal) => {
      if (this.hanging.has(identity)) {
        await new Promise<never>((_, reject) => signal?.addEventListener("abort", () => reject(new Error("aborted")), { once: true }));
      }
      await Promise.resolve();
      if (this.unreachable.has(identity)) throw new KubeConnectionError("https://fake", "lease", new Error("unreachable"));
    };
    const wrote = () => {
      this.writeTimes.push(this.clock.now());
      return structuredClone(this.lease!);
    };
    return {
      describe: "ns/mod-lock",
      get: async (signal) => {
        await reach(signal);
        return this.lease ? structuredClone(this.lease) : undefined;
      },
      create: async (lease, signal) => {
        await reach(signal);
        if (this.lease) throw new KubeApiError({ verb: "POST", path: "leases", status: 409, reason: "AlreadyExists" });
        this.lease = { ...structuredClone(lease), metadata: { name: "mod-lock", namespace: "ns", resourceVersion: String(++this.rv) } };
        return wrote();
      },
      update: async (lease, signal) => {
        await reach(signal);
        if (!this.lease) throw new KubeApiError({ verb: "PUT", path: "leases", status: 404, reason: "NotFound" });
        if (lease.metadata.resourceVersion !== this.lease.metadata.resourceVersion) {
          throw new KubeApiError({ verb: "PUT", path: "leases", status: 409, reason: "Conflict" });
        }
        this.lease = { ...structuredClone(lease), metadata: { ...lease.metadata, resourceVersion: String(++this.rv) } };
        return wrote();
      },
    };
  }
}
