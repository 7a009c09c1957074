/**
 * Errors of the timing components (`delay`, `ticker`, `cron`). Each has a stable `code`.
 */
import { TinyError } from "../sdk/errors.ts";

/** `delay` got a wait ≤ 0 ms (components.md §1.3: fails "invalid delay"). code `"INVALID_DELAY"`. */
export class InvalidDelayError extends TinyError {
  /** @param delayMs the rejected value of the `delay` field, ms. */
  constructor(readonly delayMs: number) {
    super("INVALID_DELAY", `invalid delay: field "delay" must be > 0 ms, got ${delayMs}`);
  }
}

/**
 * A wait was cut short because the hop was cancelled (caller gave up, node stopped) — components.md
 * §1.3 "aborting with the context's error". code `"CANCELLED"`; `cause` is the abort reason.
 */
export class WaitCancelledError extends TinyError {
  constructor(what: string, reason: unknown) {
    const detail = reason instanceof Error ? reason.message : reason === undefined ? "" : String(reason);
    super("CANCELLED", `${what} cancelled${detail ? `: ${detail}` : ""}`, { cause: reason });
  }
}
