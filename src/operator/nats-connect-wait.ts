/**
 * The first NATS connect's wait (`TINYHOST_NATS_CONNECT_WAIT_MS`; docs/operations.md §3): a module
 * started together with its broker (`tinyhost provision` applies both at once) would otherwise fail
 * its one 5 s connect while the broker pod starts and run on the gRPC fallback for its whole life
 * (runtime-spec §4.1, Go's rule). With the knob the first connect is retried, with a short backoff,
 * until that long has passed; then the fallback is as before. Unset or 0 = Go's single attempt.
 */
import { startTimer } from "../core/timer.ts";
import { messageOf } from "../core/errors.ts";
import type { Logger } from "../telemetry/log.ts";
import { envInteger } from "./env-integer.ts";

/** Env variable: how long the first NATS connect is retried before the gRPC fallback, ms (0–{@link MAX_NATS_CONNECT_WAIT_MS}; default 0). */
export const ENV_NATS_CONNECT_WAIT_MS = "TINYHOST_NATS_CONNECT_WAIT_MS";
/** Most {@link ENV_NATS_CONNECT_WAIT_MS} may be, ms (10 minutes). */
export const MAX_NATS_CONNECT_WAIT_MS = 600_000;
/** First pause between attempts, ms; it doubles up to {@link MAX_RETRY_PAUSE_MS}. */
export const FIRST_RETRY_PAUSE_MS = 250;
/** Longest pause between attempts, ms. */
export const MAX_RETRY_PAUSE_MS = 4_000;

/**
 * `TINYHOST_NATS_CONNECT_WAIT_MS`, 0 when unset or empty.
 * @throws Error naming the variable and the value when it is not a decimal integer from 0 to {@link MAX_NATS_CONNECT_WAIT_MS}.
 */
export function natsConnectWaitFromEnv(env: Record<string, string | undefined>): number {
  const n = envInteger(env, ENV_NATS_CONNECT_WAIT_MS, 0, "number of ms ") ?? 0;
  if (n > MAX_NATS_CONNECT_WAIT_MS)
    throw new Error(`${ENV_NATS_CONNECT_WAIT_MS} = ${JSON.stringify(env[ENV_NATS_CONNECT_WAIT_MS])} must be at most ${MAX_NATS_CONNECT_WAIT_MS} (10 minutes)`);
  return n;
}

/** Options of {@link connectWithWait}. */
export interface ConnectWithWaitOptions<T> {
  /** One connect attempt; rejects when it fails. */
  connect: () => Promise<T>;
  /** Retry until this many ms have passed since the first attempt began; 0 = one attempt. */
  waitMs: number;
  /** Each failed attempt that will be retried is logged once at warn with its reason. */
  log: Logger;
  /** Clock, ms (tests); default `performance.now`. */
  now?: () => number;
}

/**
 * Runs `connect` until it resolves or `waitMs` has passed: pauses of {@link FIRST_RETRY_PAUSE_MS}
 * doubling to {@link MAX_RETRY_PAUSE_MS}, never past the deadline.
 * @returns the first successful attempt's value.
 * @throws the last attempt's error once the wait is over (the caller falls back to gRPC).
 */
export async function connectWithWait<T>(o: ConnectWithWaitOptions<T>): Promise<T> {
  const now = o.now ?? (() => performance.now());
  const deadline = now() + o.waitMs;
  let pause = FIRST_RETRY_PAUSE_MS;
  for (let attempt = 1; ; attempt++) {
    try {
      return await o.connect();
    } catch (err) {
      const left = deadline - now();
      if (left <= 0) throw err;
      o.log.warn(
        { err: messageOf(err), attempt, leftMs: Math.round(left) },
        "nats connect failed; retrying until the broker answers (TINYHOST_NATS_CONNECT_WAIT_MS)",
      );
      await new Promise<void>((r) => startTimer(Math.min(pause, left), r));
      pause = Math.min(pause * 2, MAX_RETRY_PAUSE_MS);
    }
  }
}
