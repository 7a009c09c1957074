/**
 * Reading a promise that has already fulfilled without waiting a microtask (Bun's `Bun.peek`).
 *
 * Why: most hops of a flow finish synchronously (a router hands back its downstream promise,
 * http_server's `response` answers at once), yet chaining `.then` on each of their promises costs a
 * promise and a microtask per hop, and an HTTP handler that answers with a pending promise costs Bun
 * more than one that answers with a Response (bench/http.ts header). The runner and the HTTP
 * listener peek instead and go on synchronously when the value is already there; a pending or
 * rejected promise takes the usual `.then` path, so rejections keep their handlers.
 */

/** Marks "not fulfilled yet (pending or rejected)" in {@link fulfilledValue}'s answer. */
export const NOT_FULFILLED: unique symbol = Symbol("not fulfilled");

/**
 * The value of `p` when it has already fulfilled, else {@link NOT_FULFILLED}. Only native promises
 * are read; any other thenable counts as not fulfilled (it may run code in `then`).
 */
export function fulfilledValue<T>(p: PromiseLike<T>): T | typeof NOT_FULFILLED {
  if (!(p instanceof Promise) || Bun.peek.status(p) !== "fulfilled") return NOT_FULFILLED;
  return Bun.peek(p) as T;
}

/**
 * The reason of `p` when it has already rejected, else undefined; never waits. For a call whose
 * refusal is immediate but whose success takes long: `State.set` rejects at once with
 * `STATE_TOO_LARGE` (nothing stored) yet resolves only once the status write succeeded, so a
 * component that must refuse an oversized value without waiting for the write reads the refusal
 * here. Marks `p` handled.
 */
export function rejectedNow(p: Promise<unknown>): { reason: unknown } | undefined {
  p.catch(() => {});
  if (Bun.peek.status(p) !== "rejected") return undefined;
  return { reason: Bun.peek(p) }; // Bun.peek hands back a rejected promise's reason
}
