/**
 * A hop scope: the chain of cancellation signals and `node:port` addresses a hop inherited from its
 * callers, as an immutable linked list (O(1) per hop).
 *
 * Why not `AbortSignal.any` per hop: it is slow (bench/RESULTS.md "Hop scopes") and registers
 * listeners on long-lived node signals. A scope materialises one combined signal only when someone reads it (a handler
 * touching `ctx.signal`, a wire transport, a retry wait).
 */

import { LazyAbort, type Cancellation } from "../../core/lazy-abort.ts";

/** One link of a hop chain. */
export class HopScope {
  #combined: AbortSignal | undefined;

  /**
   * @param signal  a signal (or a {@link LazyAbort}) that cancels this hop and everything below it (node lifetime, caller abort), or undefined
   * @param address `"node:port"` of the hop this link represents (`""` for an origin)
   * @param parent  the caller's scope
   */
  constructor(
    readonly signal: Cancellation | undefined,
    readonly address: string,
    readonly parent: HopScope | undefined,
  ) {}

  /** True when any signal up the chain has aborted. */
  get aborted(): boolean {
    for (let s: HopScope | undefined = this; s; s = s.parent) if (s.signal?.aborted) return true;
    return false;
  }

  /** The abort reason of the first aborted signal up the chain, if any. */
  get reason(): unknown {
    for (let s: HopScope | undefined = this; s; s = s.parent) if (s.signal?.aborted) return s.signal.reason;
    return undefined;
  }

  /** One AbortSignal that fires when any distinct signal up the chain fires (built once, lazily). */
  toSignal(): AbortSignal {
    if (this.#combined) return this.#combined;
    const set = new Set<AbortSignal>();
    for (let s: HopScope | undefined = this; s; s = s.parent) if (s.signal) set.add(s.signal instanceof LazyAbort ? s.signal.signal : s.signal);
    const list = [...set];
    this.#combined = list.length === 0 ? new AbortController().signal : list.length === 1 ? list[0]! : AbortSignal.any(list);
    return this.#combined;
  }

  /** Addresses from the origin to this hop (oldest first), skipping empty ones. */
  trail(): string[] {
    const out: string[] = [];
    for (let s: HopScope | undefined = this; s; s = s.parent) if (s.address) out.push(s.address);
    return out.reverse();
  }
}

/** The root scope of a hop arriving from outside (a wire, a test, the emitter), with the caller's signal. */
export function rootScope(signal?: Cancellation): HopScope {
  return new HopScope(signal, "", undefined);
}

/**
 * The shortest cycle ending at the newest address of `trail` (e.g. `["a:in","b:in","a:in"]`), or the
 * last 8 addresses when no address repeats (the chain crossed a wire and lost its history).
 */
export function describeCycle(trail: readonly string[]): string[] {
  const last = trail[trail.length - 1];
  if (last === undefined) return [];
  for (let i = trail.length - 2; i >= 0; i--) if (trail[i] === last) return trail.slice(i);
  return trail.slice(-8);
}
