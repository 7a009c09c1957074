/**
 * Leader election on a Lease (runtime-spec §6; client-go `tools/leaderelection`), with the timing
 * rules kept and two sharp edges removed:
 *
 * - A candidate force-acquires a held Lease only after the record has stayed unchanged for the
 *   record's `leaseDurationSeconds`, measured on the candidate's own monotonic clock from when IT
 *   saw the record change. `renewTime` is never compared with the local wall clock, so clock skew
 *   between nodes cannot cause two leaders.
 * - The leader gives up when no renewal succeeded within `renewDeadlineMs` of the moment the last
 *   successful renewal was SENT. Because others wait `leaseDurationMs` from when they saw that
 *   write (which is later), `onStoppedLeading` fires before any other candidate can take over.
 * - Every write is an update carrying the read `resourceVersion`: of two candidates racing for one
 *   record, the second gets 409 Conflict and loses.
 * - After losing the lease the elector campaigns again after a backoff (5 s ×2 up to 5 min as the
 *   Go runtime), but, unlike Go, the backoff forgets old losses after a healthy period
 *   (docs/compatibility.md `## Leader election`).
 * - On graceful shutdown the Lease is released: holder cleared, `leaseDurationSeconds` 1
 *   (client-go `ReleaseOnCancel`), so another candidate takes over within one retry period.
 */
import { Backoff, type BackoffOptions } from "../backoff.ts";
import { systemClock, type Clock } from "../clock.ts";
import { formatMicroTime, leaseLock, type LeaseClient, type LeaseLock, type LeaseSpec } from "./lock.ts";
import type { Lease } from "../../client/resources.ts";
import { TinyError } from "../../../core/errors.ts";

/** Parameters of a {@link LeaderElector}. Durations in milliseconds. */
export interface LeaderElectorOptions {
  /** REST client used to read and write the Lease (ignored when `lock` is given). */
  client?: LeaseClient;
  /** The Lease access itself (tests pass a fake). One of `client` or `lock` is required. */
  lock?: LeaseLock;
  /** Namespace of the Lease. */
  namespace: string;
  /** Lease name; the runtime uses `<sanitizeResourceName(module)>-lock` (runtime-spec §6). */
  name: string;
  /** This candidate's identity; the runtime uses `sanitizeIdentity(HOSTNAME)` (runtime-spec §6). */
  identity: string;
  /** How long others wait on an unchanged record before taking over. Default 15000; written rounded up to whole seconds. */
  leaseDurationMs?: number;
  /** The leader stops leading when it could not renew for this long. Default 10000; must be < `leaseDurationMs`. */
  renewDeadlineMs?: number;
  /** Pause between attempts to acquire or renew. Default 2000; must be < `renewDeadlineMs`. */
  retryPeriodMs?: number;
  /** Acquire attempts wait `retryPeriodMs · (1 + jitter·random)`. Default 0.2. */
  retryJitter?: number;
  /** Release the Lease when `run`'s signal aborts (client-go `ReleaseOnCancel`). Default true. */
  releaseOnCancel?: boolean;
  /** Wait before campaigning again after losing the lease. Default 5 s ×2 → 5 min, no jitter, forgotten after 5 min. */
  recampaignBackoff?: BackoffOptions;
  /** Called when this candidate becomes leader; `signal` aborts when it stops leading. Must not throw. */
  onStartedLeading?: (signal: AbortSignal) => void;
  /** Called when this candidate stops leading (renew deadline passed, lease taken, or shutdown). Must not throw. */
  onStoppedLeading?: () => void;
  /** Called when a different (non-empty) holder is observed, including this candidate. Must not throw. */
  onNewLeader?: (identity: string) => void;
  /** Told about failed API calls (for logging). Must not throw. */
  onError?: (err: unknown) => void;
  /** Time source. Default {@link systemClock}. */
  clock?: Clock;
  /** Uniform random in [0, 1). Default `Math.random`. */
  random?: () => number;
}

/** Invalid elector options (client-go `NewLeaderElector` validation). */
export class LeaderElectionError extends TinyError<"LEADER_ELECTION"> {
  /** @param message - names the option and its value. */
  constructor(message: string) {
    super("LEADER_ELECTION", message);
    this.name = "LeaderElectionError";
  }
}

/** Why a renewal attempt failed, for the leader's bookkeeping. */
type Attempt = "ok" | "failed" | "held-by-other";

/** One candidate in a Lease-based election. Call {@link run} once. */
export class LeaderElector {
  readonly #lock: LeaseLock;
  readonly #identity: string;
  readonly #leaseMs: number;
  readonly #leaseSeconds: number;
  readonly #renewDeadlineMs: number;
  readonly #retryMs: number;
  readonly #jitter: number;
  readonly #releaseOnCancel: boolean;
  readonly #opts: LeaderElectorOptions;
  readonly #clock: Clock;
  readonly #random: () => number;
  readonly #recampaign: Backoff;
  /** The record as last read or written, and the full object (for its resourceVersion). */
  #observed: LeaseSpec | undefined;
  #observedLease: Lease | undefined;
  /** Monotonic time the record was last seen to change. */
  #observedAt = 0;
  #leading = false;
  #reported: string | undefined;
  #running: Promise<void> | undefined;
  #stop = new AbortController();
  #forceRelease = false;
  #leaderKnown!: (identity: string) => void;
  readonly #leaderKnownPromise = new Promise<string>((resolve) => (this.#leaderKnown = resolve));

  /** @throws LeaderElectionError on a missing lock/client or timings that break the rules above. */
  constructor(opts: LeaderElectorOptions) {
    this.#opts = opts;
    const lock = opts.lock ?? (opts.client ? leaseLock(opts.client, opts.namespace, opts.name) : undefined);
    if (!lock) throw new LeaderElectionError("leader election needs either `client` or `lock`");
    this.#lock = lock;
    if (!opts.identity) throw new LeaderElectionError(`identity = ${JSON.stringify(opts.identity)} must not be empty`);
    this.#identity = opts.identity;
    this.#leaseMs = opts.leaseDurationMs ?? 15_000;
    this.#renewDeadlineMs = opts.renewDeadlineMs ?? 10_000;
    this.#retryMs = opts.retryPeriodMs ?? 2_000;
    this.#jitter = opts.retryJitter ?? 0.2;
    if (!(this.#leaseMs >= 1000)) throw new LeaderElectionError(`leaseDurationMs = ${this.#leaseMs} must be at least 1000`);
    if (!(this.#renewDeadlineMs < this.#leaseMs)) {
      throw new LeaderElectionError(`renewDeadlineMs = ${this.#renewDeadlineMs} must be less than leaseDurationMs = ${this.#leaseMs}`);
    }
    if (!(this.#retryMs > 0 && this.#retryMs < this.#renewDeadlineMs)) {
      throw new LeaderElectionError(`retryPeriodMs = ${this.#retryMs} must be positive and less than renewDeadlineMs = ${this.#renewDeadlineMs}`);
    }
    this.#leaseSeconds = Math.ceil(this.#leaseMs / 1000);
    this.#releaseOnCancel = opts.releaseOnCancel ?? true;
    this.#clock = opts.clock ?? systemClock;
    this.#random = opts.random ?? Math.random;
    this.#recampaign = new Backoff({
      initialMs: 5_000,
      maxMs: 300_000,
      factor: 2,
      jitter: 0,
      resetAfterMs: 300_000,
      clock: this.#clock,
      ...opts.recampaignBackoff,
    });
  }

  /** True while this candidate leads (between `onStartedLeading` and `onStoppedLeading`). */
  isLeader(): boolean {
    return this.#leading;
  }

  /** The holder identity last observed on the Lease, or undefined when none (never seen or released). */
  leader(): string | undefined {
    return this.#observed?.holderIdentity || undefined;
  }

  /** Resolves with the first holder observed (the Go runtime starts its manager only then; runtime-spec §6). */
  whenLeaderKnown(): Promise<string> {
    return this.#leaderKnownPromise;
  }

  /**
   * Campaigns, leads, and campaigns again after losing the lease, until `signal` aborts or
   * {@link release} is called; then stops leading and, with `releaseOnCancel`, releases the Lease.
   * API errors never reject: they count as failed attempts.
   * @throws LeaderElectionError when already running.
   */
  run(signal: AbortSignal): Promise<void> {
    if (this.#running) throw new LeaderElectionError(`leader election for ${this.#lock.describe} is already running`);
    const stop = AbortSignal.any([signal, this.#stop.signal]);
    this.#running = this.#loop(stop);
    return this.#running;
  }

  /**
   * Stops leading (if leading) and clears the holder on the Lease so another candidate can take over
   * at once. Stops a running {@link run}. Safe to call more than once.
   * @returns true when the Lease no longer names this candidate (released, or not held).
   */
  async release(): Promise<boolean> {
    this.#forceRelease = true;
    this.#stop.abort();
    if (this.#running) await this.#running;
    return this.#releaseLease();
  }

  async #loop(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      if (!(await this.#acquire(signal))) break;
      this.#leading = true;
      const term = new AbortController();
      safe(() => this.#opts.onStartedLeading?.(term.signal));
      await this.#renew(signal);
      this.#leading = false;
      term.abort();
      safe(() => this.#opts.onStoppedLeading?.());
      if (signal.aborted) break;
      await this.#clock.sleep(this.#recampaign.next(), signal);
    }
    if (this.#releaseOnCancel || this.#forceRelease) await this.#releaseLease();
  }

  /** Tries every retry period until the lease is ours; false when `signal` aborted first. */
  async #acquire(signal: AbortSignal): Promise<boolean> {
    while (!signal.aborted) {
      const result = await this.#attempt(this.#renewDeadlineMs, signal);
      if (result === "ok") return true;
      await this.#clock.sleep(this.#retryMs * (1 + this.#jitter * this.#random()), signal);
    }
    return false;
  }

  /** Renews every retry period; returns when the renew deadline passed, the lease was taken, or `signal` aborted. */
  async #renew(signal: AbortSignal): Promise<void> {
    let lastSentAt = this.#lastSentAt;
    while (!signal.aborted) {
      await this.#clock.sleep(this.#retryMs, signal);
      for (;;) {
        if (signal.aborted) return;
        const remaining = lastSentAt + this.#renewDeadlineMs - this.#clock.now();
        if (remaining <= 0) return; // deadline passed: stop before the lease can expire for others
        const result = await this.#attempt(remaining, signal);
        if (result === "ok") {
          lastSentAt = this.#lastSentAt;
          break;
        }
        if (result === "held-by-other") return;
        const left = lastSentAt + this.#renewDeadlineMs - this.#clock.now();
        await this.#clock.sleep(Math.min(this.#retryMs, Math.max(0, left)), signal);
      }
    }
  }

  /** Monotonic time the last successful write was sent. */
  #lastSentAt = 0;

  /** One tryAcquireOrRenew bounded by `timeoutMs` (the request is aborted when the bound passes). */
  async #attempt(timeoutMs: number, signal: AbortSignal): Promise<Attempt> {
    const deadline = new AbortController();
    const timer = this.#clock.sleep(timeoutMs, deadline.signal).then(() => deadline.abort());
    const cancelled = AbortSignal.any([deadline.signal, signal]);
    try {
      const result = await Promise.race([
        this.#tryAcquireOrRenew(cancelled),
        new Promise<Attempt>((resolve) => cancelled.addEventListener("abort", () => resolve("failed"), { once: true })),
      ]);
      this.#report();
      return result;
    } finally {
      deadline.abort(); // ends the timer
      await timer;
    }
  }

  async #tryAcquireOrRenew(signal: AbortSignal): Promise<Attempt> {
    const sentAt = this.#clock.now();
    const now = formatMicroTime(this.#clock.wallNow());
    let current: Lease | undefined;
    try {
      current = await this.#lock.get(signal);
    } catch (err) {
      this.#error(err, signal);
      return "failed";
    }
    if (signal.aborted) return "failed";
    if (!current) {
      const spec: LeaseSpec = {
        holderIdentity: this.#identity,
        leaseDurationSeconds: this.#leaseSeconds,
        acquireTime: now,
        renewTime: now,
        leaseTransitions: 0,
      };
      try {
        const created = await this.#lock.create({ apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: {}, spec }, signal);
        if (signal.aborted) return "failed";
        this.#see(created, true);
        this.#lastSentAt = sentAt;
        return "ok";
      } catch (err) {
        this.#error(err, signal); // AlreadyExists: another candidate created it first
        return "failed";
      }
    }
    this.#see(current, false);
    const old = current.spec ?? {};
    const holder = old.holderIdentity || undefined;
    const mine = holder === this.#identity;
    if (holder && !mine) {
      const waitMs = (old.leaseDurationSeconds ?? this.#leaseSeconds) * 1000;
      if (this.#leading) return "held-by-other";
      if (this.#clock.now() < this.#observedAt + waitMs) return "failed"; // held and not expired as WE measure it
    }
    const spec: LeaseSpec = {
      holderIdentity: this.#identity,
      leaseDurationSeconds: this.#leaseSeconds,
      acquireTime: mine ? (old.acquireTime ?? now) : now,
      renewTime: now,
      leaseTransitions: mine ? (old.leaseTransitions ?? 0) : (old.leaseTransitions ?? 0) + 1,
    };
    try {
      const updated = await this.#lock.update({ ...current, spec }, signal);
      if (signal.aborted) return "failed";
      this.#see(updated, true);
      this.#lastSentAt = sentAt;
      return "ok";
    } catch (err) {
      this.#error(err, signal); // Conflict: someone wrote the record since we read it
      return "failed";
    }
  }

  /** Records what the Lease says; the observation clock restarts only when the record changed. */
  #see(lease: Lease, written: boolean): void {
    const spec = lease.spec ?? {};
    if (written || !sameRecord(spec, this.#observed)) {
      this.#observed = spec;
      this.#observedAt = this.#clock.now();
    }
    this.#observedLease = lease;
  }

  #report(): void {
    const holder = this.leader();
    if (holder === undefined || holder === this.#reported) return;
    this.#reported = holder;
    this.#leaderKnown(holder);
    safe(() => this.#opts.onNewLeader?.(holder));
  }

  #error(err: unknown, signal: AbortSignal): void {
    if (!signal.aborted) safe(() => this.#opts.onError?.(err));
  }

  /** Clears the holder if the Lease still names us; re-reads once on a conflict. */
  async #releaseLease(): Promise<boolean> {
    for (let attempt = 0; attempt < 2; attempt++) {
      let lease = this.#observedLease;
      if (attempt > 0 || !lease) {
        try {
          lease = await this.#lock.get();
        } catch (err) {
          safe(() => this.#opts.onError?.(err));
          return false;
        }
        if (lease) this.#see(lease, false);
      }
      if (!lease || lease.spec?.holderIdentity !== this.#identity) return true;
      // client-go `release()`: holder and times cleared, transitions kept, duration 1 s.
      const spec: LeaseSpec = { leaseDurationSeconds: 1, leaseTransitions: lease.spec?.leaseTransitions ?? 0 };
      try {
        const updated = await this.#lock.update({ ...lease, spec });
        this.#see(updated, true);
        return true;
      } catch (err) {
        safe(() => this.#opts.onError?.(err));
      }
    }
    return false;
  }
}

function sameRecord(a: LeaseSpec, b: LeaseSpec | undefined): boolean {
  if (!b) return false;
  return (
    (a.holderIdentity ?? "") === (b.holderIdentity ?? "") &&
    (a.leaseDurationSeconds ?? 0) === (b.leaseDurationSeconds ?? 0) &&
    (a.acquireTime ?? "") === (b.acquireTime ?? "") &&
    (a.renewTime ?? "") === (b.renewTime ?? "") &&
    (a.leaseTransitions ?? 0) === (b.leaseTransitions ?? 0)
  );
}

function safe(fn: () => unknown): void {
  try {
    const result = fn();
    if (result instanceof Promise) result.catch(() => {});
  } catch {
    // callbacks must not throw; one that does must not break the election
  }
}
