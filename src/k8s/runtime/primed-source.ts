/**
 * A watch source whose first list page is requested before its watcher exists, so a start-up
 * that must wait for other stages (components, the wire) before its controllers start does not
 * then also wait one apiserver round trip, usually on a new TLS connection, for the cache to sync
 * (the TinyNode list was the last request before /readyz).
 *
 * Correctness is the watcher's: the early page is a consistent snapshot at its
 * `metadata.resourceVersion`, and the watch that follows resumes from that version, so every change
 * made between the early list and the watch is still delivered as an event.
 */
import type { KubeList, KubeObject } from "../client/types.ts";
import type { ListPageOptions, WatchSource } from "./source.ts";

/** The page size the {@link Watcher} lists with by default (its `pageSize` option). */
export const DEFAULT_PRIMED_PAGE_SIZE = 500;

/**
 * Wraps `source` and asks it now for the first page (`limit` = `pageSize`, no continue token).
 * Only the first `list` call can get the early answer (or its error: the watcher retries as after
 * any failed list), and only when it asks for exactly that page with a signal not yet aborted;
 * every other call goes to `source`. A page never taken is dropped with the source.
 * @param pageSize - must equal the watcher's `pageSize` (default {@link DEFAULT_PRIMED_PAGE_SIZE}),
 *   else the early page is never used.
 */
export function primedSource<T extends KubeObject>(source: WatchSource<T>, pageSize = DEFAULT_PRIMED_PAGE_SIZE): WatchSource<T> {
  let early: Promise<KubeList<T>> | undefined = source.list({ limit: pageSize });
  early.catch(() => {}); // reported when the watcher takes it
  return {
    list(opts: ListPageOptions) {
      const first = early;
      early = undefined;
      if (first && opts.limit === pageSize && !opts.continue && !opts.signal?.aborted) return first;
      return source.list(opts);
    },
    watch: (opts) => source.watch(opts),
  };
}
