/**
 * Local mode's view of http_server bind failures. The runtime's node status only carries
 * reconcile errors (runtime-spec §2.6), and http_server reports a failed bind as the failure of its
 * `start` hop (components.md §2.1) — in a cluster the dashboard shows that on the caller's edge — or,
 * when it re-hosts from metadata on reconcile, as an error log line. On a laptop nobody reads edges
 * or JSON logs, so local mode recognises both (src/local/hop-watch.ts, src/local/human-log.ts) and
 * turns a failed bind into the node's status error.
 */

/**
 * Error code of http_server's bind failure (`ListenError` in src/sdk/http/listener.ts:
 * port in use, no permission, bad TLS material).
 */
export const HTTP_LISTEN_ERROR_CODE = "HTTP_LISTEN";

/** A bind failure seen on a node's input hop or in its log. */
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

/** `ListenError`'s message: `http_server: cannot listen on :<port>: <reason>` (src/sdk/http/listener.ts). */
const LISTEN_ERROR_TEXT = /^http_server: cannot listen on :(\d+): /;

/**
 * The port of a bind failure known only by its text — the `err` field of http_server's
 * `restore from metadata failed` log line, which carries the message, not the error.
 * @returns the port, or undefined when `text` is not a `ListenError` message.
 */
export function listenErrorPort(text: string): number | undefined {
  const m = LISTEN_ERROR_TEXT.exec(text);
  return m ? Number(m[1]) : undefined;
}
