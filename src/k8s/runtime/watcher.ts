/**
 * Stage 1 of the watch pipeline (kube-rs `watcher`, client-go `Reflector.ListAndWatch`): list the
 * collection page by page, report it as one `restarted` event, then watch from the list's
 * resourceVersion with bookmarks and report each change. The stream never ends on its own: it
 * resumes from the last version it saw after a disconnect or a server-side timeout, relists when
 * the version is too old (410 Gone) or when the watch falls silent, and backs off with jitter on
 * errors. Rules: Kubernetes docs "API Concepts › Efficient detection of changes" and
 * "› Watch bookmarks", client-go `tools/cache/reflector.go`.
 */
import { isGone } from "../client/errors.ts";
import type { KubeObject, KubeStatus } from "../client/types.ts";
import { Backoff, type BackoffOptions } from "./backoff.ts";
import { systemClock, type Clock } from "./clock.ts";
import type { WatchSource } from "./source.ts";
import { TinyError } from "../../core/errors.ts";

/** Why the watcher (re)listed. */
export type RestartReason = "initial" | "gone" | "watchdog";

/**
 * What the watcher reports.
 * - `restarted`: a full, consistent list; everything not in it no longer exists. Always first.
 * - `applied`: an object was added or modified (watch ADDED/MODIFIED).
 * - `deleted`: an object was deleted; `object` is its last state.
 */
export type WatcherEvent<T extends KubeObject> =
  | { type: "restarted"; objects: T[]; resourceVersion: string; reason: RestartReason }
  | { type: "applied"; object: T }
  | { type: "deleted"; object: T };

/** Counters of one watcher, for /metrics and tests. Monotonic except `resourceVersion`. */
export interface WatcherStats {
  /** Completed lists (initial + relists). */
  lists: number;
  /** Lists after the first one (410 Gone or watchdog). */
  relists: number;
  /** WATCH requests started. */
  watchStarts: number;
  /** Watches started again after one ended (any cause, including a clean server timeout). */
  watchRestarts: number;
  /** 410 Gone answers (too-old resourceVersion or expired continue token). */
  gone: number;
  /** Relists forced by the silence watchdog. */
  watchdogRelists: number;
  /** Failed requests and ERROR events that led to a backoff. */
  errors: number;
  /** Milliseconds spent waiting in backoff, summed. */
  backoffMs: number;
  /** Last collection version seen (list, event or bookmark); empty before the first list. */
  resourceVersion: string;
  /** Duration of the last completed list (all pages), ms; 0 before the first list. */
  lastListMs: number;
}

/** Parameters of a {@link Watcher}. Durations in milliseconds unless named otherwise. */
export interface WatcherOptions<T extends KubeObject = KubeObject> {
  /** LIST page size. Default 500 (client-go pager default). */
  pageSize?: number;
  /**
   * Server-side timeout of each WATCH in seconds, after which the server ends the stream and the
   * watcher resumes. Default: random in [300, 600) per request, as client-go's reflector does to
   * spread reconnects.
   */
  watchTimeoutSeconds?: number;
  /** Request BOOKMARK events. Default true. */
  bookmarks?: boolean;
  /** Retry delays after errors: a {@link Backoff} or its options. Default 1 s → 30 s, jitter 0.5, reset after 120 s healthy. */
  backoff?: Backoff | BackoffOptions;
  /**
   * Relist when nothing at all (not even a bookmark) arrived for this long on an open watch.
   * Default 300000 (5 min); 0 turns it off. The apiserver sends a bookmark about every minute.
   */
  watchdogMs?: number;
  /**
   * A watch that ends cleanly sooner than this after it started counts as a failure for the
   * backoff, so a server that closes every watch at once cannot make the watcher spin. Default 1000.
   */
  minWatchMs?: number;
  /** Time source. Default {@link systemClock}. */
  clock?: Clock;
  /** Told about every error the watcher recovers from (for logging); must not throw. */
  onError?: (err: unknown) => void;
  /**
   * Rewrites every listed or watched object before it is reported (client-go
   * `SharedIndexInformer.SetTransform`, kube-rs `WatchStreamExt::modify`), e.g.
   * {@link stripManagedFields} so a cache does not hold what nobody reads. Must not throw.
   */
  transform?: (object: T) => T;
}

/**
 * Drops `metadata.managedFields` (server-side apply bookkeeping, often the largest part of a small
 * object) in place and returns the object: controller-runtime's `cache.TransformStripManagedFields`.
 * Nothing in a reconcile reads it; writes carry their own field manager.
 */
export function stripManagedFields<T extends KubeObject>(object: T): T {
  if (object.metadata?.managedFields !== undefined) delete object.metadata.managedFields;
  return object;
}

/** A non-410 ERROR event on a watch stream. */
export class WatchStatusError extends TinyError<"K8S_WATCH_STATUS"> {
  /** The Status the server sent. */
  readonly status: KubeStatus;
  /** @param status - the ERROR event's object. */
  constructor(status: KubeStatus) {
    super("K8S_WATCH_STATUS", `watch ERROR event: ${status.code ?? "?"} ${status.reason ?? ""} ${status.message ?? ""}`.trim());
    this.name = "WatchStatusError";
    this.status = status;
  }
}

/** A watcher stage over one {@link WatchSource}. Iterate {@link Watcher.events} once at a time. */
export class Watcher<T extends KubeObject> {
  /** Live counters (see {@link WatcherStats}). */
  readonly stats: WatcherStats = {
    lists: 0,
    relists: 0,
    watchStarts: 0,
    watchRestarts: 0,
    gone: 0,
    watchdogRelists: 0,
    errors: 0,
    backoffMs: 0,
    resourceVersion: "",
    lastListMs: 0,
  };
  readonly #source: WatchSource<T>;
  readonly #pageSize: number;
  readonly #timeoutSeconds: number | undefined;
  readonly #bookmarks: boolean;
  readonly #backoff: Backoff;
  readonly #watchdogMs: number;
  readonly #minWatchMs: number;
  readonly #clock: Clock;
  readonly #onError: (err: unknown) => void;
  readonly #transform: ((object: T) => T) | undefined;

  /** @param source - the resource to list and watch. @param opts - see {@link WatcherOptions}. */
  constructor(source: WatchSource<T>, opts: WatcherOptions<T> = {}) {
    this.#source = source;
    this.#pageSize = opts.pageSize ?? 500;
    this.#timeoutSeconds = opts.watchTimeoutSeconds;
    this.#bookmarks = opts.bookmarks ?? true;
    this.#clock = opts.clock ?? systemClock;
    this.#backoff = opts.backoff instanceof Backoff ? opts.backoff : new Backoff({ clock: this.#clock, ...opts.backoff });
    this.#watchdogMs = opts.watchdogMs ?? 300_000;
    this.#minWatchMs = opts.minWatchMs ?? 1000;
    this.#onError = opts.onError ?? (() => {});
    this.#transform = opts.transform;
  }

  /**
   * The event stream. Ends only when `signal` aborts or the consumer stops iterating; every API
   * failure is retried.
   */
  async *events(signal: AbortSignal = new AbortController().signal): AsyncGenerator<WatcherEvent<T>> {
    let rv: string | undefined;
    let reason: RestartReason = "initial";
    let goneInARow = 0; // 410s with no event in between: back off from the second one on
    while (!signal.aborted) {
      if (rv === undefined) {
        let listed: { objects: T[]; resourceVersion: string };
        const listStart = this.#clock.now();
        try {
          listed = await this.#listAll(signal);
        } catch (err) {
          if (signal.aborted) return;
          await this.#fail(err, signal);
          continue;
        }
        this.stats.lists++;
        this.stats.lastListMs = this.#clock.now() - listStart;
        if (reason !== "initial") this.stats.relists++;
        rv = listed.resourceVersion;
        this.stats.resourceVersion = rv;
        yield { type: "restarted", objects: listed.objects, resourceVersion: rv, reason };
        reason = "initial";
        if (signal.aborted) return;
      }

      // One WATCH request, guarded by the silence watchdog.
      const request = new AbortController();
      const stopRequest = () => request.abort();
      signal.addEventListener("abort", stopRequest, { once: true });
      const dog = this.#startWatchdog(request);
      const startedAt = this.#clock.now();
      this.stats.watchStarts++;
      let failure: unknown;
      let failed = false;
      try {
        const stream = this.#source.watch({
          resourceVersion: rv,
          allowWatchBookmarks: this.#bookmarks,
          timeoutSeconds: this.#timeoutSeconds ?? Math.floor(300 + Math.random() * 300),
          signal: request.signal,
        });
        for await (const ev of stream) {
          dog.touch();
          goneInARow = 0;
          if (ev.type === "ERROR") throw new WatchStatusError(ev.object);
          const version = ev.object.metadata?.resourceVersion;
          if (version) rv = version;
          this.stats.resourceVersion = rv;
          if (ev.type === "BOOKMARK") continue;
          dog.pause();
          const object = this.#transform ? this.#transform(ev.object) : ev.object;
          yield ev.type === "DELETED" ? { type: "deleted", object } : { type: "applied", object };
          dog.resume();
        }
      } catch (err) {
        failed = true;
        failure = err;
      } finally {
        dog.stop();
        request.abort();
        signal.removeEventListener("abort", stopRequest);
      }
      if (signal.aborted) return;
      this.stats.watchRestarts++;
      if (dog.fired) {
        this.stats.watchdogRelists++;
        rv = undefined;
        reason = "watchdog";
      } else if (failed && (isGone(failure) || (failure instanceof WatchStatusError && failure.status.code === 410))) {
        this.stats.gone++;
        rv = undefined;
        reason = "gone";
        if (++goneInARow > 1) await this.#fail(failure, signal);
      } else if (failed) {
        await this.#fail(failure, signal);
      } else if (this.#clock.now() - startedAt < this.#minWatchMs) {
        await this.#fail(new Error(`watch ended after ${Math.round(this.#clock.now() - startedAt)} ms`), signal);
      }
    }
  }

  /** Lists every page; restarts from the first page when a continue token expired (410). */
  async #listAll(signal: AbortSignal): Promise<{ objects: T[]; resourceVersion: string }> {
    for (;;) {
      const objects: T[] = [];
      let cont: string | undefined;
      let resourceVersion = "";
      try {
        do {
          const page = await this.#source.list({ limit: this.#pageSize, signal, ...(cont ? { continue: cont } : {}) });
          const transform = this.#transform;
          if (transform) for (const item of page.items) objects.push(transform(item));
          else for (const item of page.items) objects.push(item);
          resourceVersion = page.metadata.resourceVersion;
          cont = page.metadata.continue || undefined;
        } while (cont && !signal.aborted);
        return { objects, resourceVersion };
      } catch (err) {
        if (!(cont && isGone(err))) throw err;
        this.stats.gone++; // the snapshot behind the token was compacted: start a new one
      }
    }
  }

  async #fail(err: unknown, signal: AbortSignal): Promise<void> {
    this.stats.errors++;
    this.#onError(err);
    const delay = this.#backoff.next();
    this.stats.backoffMs += delay;
    await this.#clock.sleep(delay, signal);
  }

  #startWatchdog(request: AbortController): Watchdog {
    const clock = this.#clock;
    const limit = this.#watchdogMs;
    const stopped = new AbortController();
    const state: Watchdog = {
      fired: false,
      touch: () => void (last = clock.now()),
      pause: () => void (paused = true),
      resume: () => {
        paused = false;
        last = clock.now(); // time spent waiting for the consumer is not silence
      },
      stop: () => stopped.abort(),
    };
    let last = clock.now();
    let paused = false;
    if (limit > 0) {
      void (async () => {
        while (!stopped.signal.aborted) {
          const due = last + limit - clock.now();
          if (due > 0) {
            await clock.sleep(due, stopped.signal);
            continue;
          }
          if (paused) {
            last = clock.now();
            continue;
          }
          state.fired = true;
          request.abort();
          return;
        }
      })();
    }
    return state;
  }
}

interface Watchdog {
  fired: boolean;
  touch(): void;
  pause(): void;
  resume(): void;
  stop(): void;
}

/** Shorthand for `new Watcher(source, opts)` (kube-rs `watcher(api, config)`). */
export function watcher<T extends KubeObject>(source: WatchSource<T>, opts?: WatcherOptions<T>): Watcher<T> {
  return new Watcher(source, opts);
}
