/**
 * A debounced directory watch: editors save in bursts (write, rename, chmod), so changes are
 * collected until the directory has been quiet for `debounceMs` and then delivered once.
 */
import { watch, type FSWatcher } from "node:fs";

/** Options of {@link watchDirectory}. */
export interface WatchOptions {
  /** Watch sub-directories too. */
  recursive?: boolean;
  /** Quiet time before delivering, ms (default 150). */
  debounceMs?: number;
  /** Receives the changed paths (relative to the directory, `/`-separated; `""` when unknown). */
  onChange(paths: Set<string>): void;
  /** Receives a watcher error (the watch stops). */
  onError?(err: Error): void;
}

/**
 * Watches `dir` and returns a function that stops watching.
 * @throws the file system's error when `dir` cannot be watched.
 */
export function watchDirectory(dir: string, options: WatchOptions): () => void {
  const debounceMs = options.debounceMs ?? 150;
  let pending = new Set<string>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const watcher: FSWatcher = watch(dir, { recursive: options.recursive ?? false }, (_event, filename) => {
    pending.add(typeof filename === "string" ? filename.replaceAll("\\", "/") : "");
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      const paths = pending;
      pending = new Set();
      options.onChange(paths);
    }, debounceMs);
  });
  watcher.on("error", (err: Error) => options.onError?.(err));
  return () => {
    if (timer) clearTimeout(timer);
    watcher.close();
  };
}
