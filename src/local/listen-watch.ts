/**
 * Local mode's view of http_server bind failures. The runtime's node status only carries
 * reconcile errors (runtime-spec §2.6), and http_server reports a failed bind as the failure of its
 * `start` hop (components.md §2.1) — in a cluster the dashboard shows that on the caller's edge. On
 * a laptop nobody reads edges, so local mode watches the input hops of http_server nodes (through
 * the scheduler's {@link Tracer}) and turns a failed bind into the node's status error.
 */
import type { HopSite, HopSpan, Tracer } from "../runtime/runner/tracer.ts";
import type { Msg } from "../transport/types.ts";

/**
 * Error code of http_server's bind failure (`ListenError` in src/components-lib/http-listener.ts:
 * port in use, no permission, bad TLS material).
 */
export const HTTP_LISTEN_ERROR_CODE = "HTTP_LISTEN";

/** A bind failure seen on a node's input hop. */
export interface ListenFailure {
  /** Node name. */
  node: string;
  /** The error, as the hop failed with it (message `http_server: cannot listen on :<port>: …`). */
  error: Error;
  /** True when the port is taken by another process (EADDRINUSE). */
  inUse: boolean;
}

/** True when `err` is http_server's bind failure. */
export function isListenError(err: unknown): err is Error & { code: string } {
  return err instanceof Error && (err as { code?: unknown }).code === HTTP_LISTEN_ERROR_CODE;
}

/** True when a bind failure says the port is in use: the cause's `EADDRINUSE` code, or Bun's "in use" text. */
export function isPortInUse(err: Error): boolean {
  const cause = (err as { cause?: unknown }).cause as { code?: unknown; message?: unknown } | undefined;
  if (cause?.code === "EADDRINUSE") return true;
  return /EADDRINUSE|in use/i.test(`${err.message} ${typeof cause?.message === "string" ? cause.message : ""}`);
}

/** A span that reports a listen error to `onFail` when it ends with one. */
function watchedSpan(span: HopSpan, onFail: (err: Error) => void): HopSpan {
  return {
    get recording() {
      return span.recording;
    },
    event: (name, attributes) => span.event(name, attributes),
    data: (value) => span.data(value),
    run: (fn) => span.run(fn),
    end(error) {
      if (isListenError(error)) onFail(error);
      span.end(error);
    },
  };
}

/**
 * Wraps `inner` so a listen error ending an input hop of a watched node reaches `onFail`; every
 * span is still recorded by `inner`.
 * @param watched true for node names whose input hops to watch (the http_server nodes); other
 *   nodes' spans are passed through untouched, so their hops cost nothing extra.
 */
export function listenWatchingTracer(inner: Tracer, watched: (node: string) => boolean, onFail: (failure: ListenFailure) => void): Tracer {
  return {
    input(site: HopSite, port: string, msg: Msg): HopSpan {
      const span = inner.input(site, port, msg);
      if (!watched(site.name)) return span;
      return watchedSpan(span, (error) => onFail({ node: site.name, error, inUse: isPortInUse(error) }));
    },
    output: (site, port, data) => inner.output(site, port, data),
    get active() {
      return inner.active;
    },
  };
}
