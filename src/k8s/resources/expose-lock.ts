/**
 * The expose lock: tinyhost writers of one release take turns on the Service+Ingress pair. Go
 * holds a process-local mutex around ExposePort/DisclosePort (runtime-spec §7.1 step 3); replicas
 * of a module run the same code against the same two objects, and two writes to two objects cannot
 * be one compare-and-swap, so without a shared turn a replica's rollback could undo a port another
 * replica was just completing. The lock is an annotation on the release Service (no extra object,
 * no extra RBAC), taken and released with compare-and-swap updates (release-updates.ts).
 *
 * Expiry follows client-go leader election (tools/leaderelection): a waiter never compares its
 * clock with the holder's; it takes a lock over only after seeing the same lock value unchanged
 * for the holder's TTL on its own monotonic clock, so a crashed holder delays others by one TTL.
 * Only the Service and Ingress writes of exposePort/disclosePort run under it; writers outside
 * tinyhost are handled by compare-and-swap and the ownership records, not by this lock.
 */
import { randomBytes } from "node:crypto";
import type { Service } from "../client/index.ts";
import { DEFAULT_EXPOSE_LOCK_TTL_MS, type ResourceContext } from "./context.ts";
import { ExposeLockTimeoutError } from "./errors.ts";
import { withAnnotation } from "./ownership.ts";
import { describeObject, updateService } from "./release-updates.ts";
import { messageOf } from "../../core/errors.ts";

/** Annotation on the release Service holding the lock: `{"holder": "<pod>/<random>", "ttlSeconds": n, "since": "<RFC 3339>"}`. */
export const EXPOSE_LOCK_ANNOTATION = "tinyhost.io/expose-lock";
/** How long past the holder's TTL a waiter keeps waiting before it gives up, ms. */
export const EXPOSE_LOCK_GRACE_MS = 10_000;

/** A parsed lock annotation. */
export interface ExposeLock {
  /** Who holds it. */
  holder: string;
  /** Its time-to-live, ms. */
  ttlMs: number;
}

/**
 * Parses the lock annotation. Something unreadable counts as a lock held by `"<unreadable>"` with
 * the default TTL, so it expires like any other and is then replaced.
 */
export function parseExposeLock(raw: string): ExposeLock {
  try {
    const v = JSON.parse(raw) as { holder?: unknown; ttlSeconds?: unknown };
    if (typeof v.holder === "string" && typeof v.ttlSeconds === "number" && v.ttlSeconds > 0) return { holder: v.holder, ttlMs: v.ttlSeconds * 1000 };
  } catch {
    // fall through
  }
  return { holder: "<unreadable>", ttlMs: DEFAULT_EXPOSE_LOCK_TTL_MS };
}

/** What a waiter remembers about a lock it found held: the raw value and when (its monotonic ms) it first saw it. */
export interface LockObservation {
  raw: string;
  sinceMs: number;
}

/**
 * Decides whether `me` may take the lock now. Pure (the clock is a parameter).
 * @param raw - the annotation's value (undefined/empty = free).
 * @param seen - what this waiter saw before (updated and returned).
 * @param nowMs - the waiter's monotonic clock, ms.
 * @returns `take: true` when free, already mine, or unchanged for its TTL; else the holder and TTL.
 */
export function decideLock(
  raw: string | undefined,
  me: string,
  seen: LockObservation | undefined,
  nowMs: number,
): { take: boolean; seen: LockObservation | undefined; lock?: ExposeLock } {
  if (raw === undefined || raw === "") return { take: true, seen: undefined };
  const lock = parseExposeLock(raw);
  if (lock.holder === me) return { take: true, seen: undefined };
  const observed = seen?.raw === raw ? seen : { raw, sinceMs: nowMs };
  return { take: nowMs - observed.sinceMs >= lock.ttlMs, seen: observed, lock };
}

function withLock(service: Service, value: string | undefined): Service {
  return withAnnotation(service, EXPOSE_LOCK_ANNOTATION, value);
}

/**
 * Runs `fn` holding the expose lock of the release Service `serviceName`, and releases it after
 * (success or failure). A release that fails is logged, not thrown: the lock then expires.
 * @throws ExposeLockTimeoutError when another holder keeps it past its TTL + {@link EXPOSE_LOCK_GRACE_MS};
 *   ConflictRetriesExhaustedError, KubeApiError from taking it; whatever `fn` throws.
 */
export async function withExposeLock<R>(ctx: ResourceContext, serviceName: string, fn: () => Promise<R>): Promise<R> {
  const me = `${ctx.podName ?? "unknown-pod"}/${randomBytes(4).toString("hex")}`;
  const value = JSON.stringify({ holder: me, ttlSeconds: Math.max(1, Math.ceil(ctx.lockTtlMs / 1000)), since: new Date().toISOString() });
  const started = performance.now();
  let seen: LockObservation | undefined;
  for (let round = 1; ; round++) {
    let held: ExposeLock | undefined;
    await updateService(ctx, serviceName, (current) => {
      const decision = decideLock(current.metadata.annotations?.[EXPOSE_LOCK_ANNOTATION], me, seen, performance.now());
      seen = decision.seen;
      held = decision.take ? undefined : decision.lock;
      if (!decision.take) return undefined;
      if (current.metadata.annotations?.[EXPOSE_LOCK_ANNOTATION] === value) return undefined;
      if (decision.lock)
        ctx.log.warn({ service: serviceName, holder: decision.lock.holder }, "expose lock: taking over a lock whose holder did not release it within its TTL");
      return withLock(current, value);
    });
    if (held === undefined) break;
    const waited = performance.now() - started;
    if (waited > held.ttlMs + EXPOSE_LOCK_GRACE_MS) throw new ExposeLockTimeoutError(describeObject("Service", ctx, serviceName), held.holder, waited);
    await Bun.sleep(5 + Math.random() * Math.min(200, 20 * round));
  }
  try {
    return await fn();
  } finally {
    try {
      await updateService(ctx, serviceName, (current) => {
        const raw = current.metadata.annotations?.[EXPOSE_LOCK_ANNOTATION];
        return raw !== undefined && parseExposeLock(raw).holder === me ? withLock(current, undefined) : undefined;
      });
    } catch (err) {
      ctx.log.warn({ service: serviceName, err: messageOf(err) }, "expose lock: release failed; it expires after its TTL");
    }
  }
}
