/**
 * The module's leadership: whether this pod holds the Lease `<module>-lock`, whether any leader was
 * observed yet (/readyz waits for one), and who wants to hear of a change — plus the campaign that
 * drives it (runtime-spec §6: 15 s / 10 s / 2 s, released on stop like client-go's
 * `ReleaseOnCancel`).
 *
 * The campaign starts before the manager (the Lease get is the longest wait before
 * /readyz), while the scheduler and the controllers that follow the leadership do not exist yet;
 * they subscribe with {@link Leadership.onChange} once built and read {@link Leadership.leading}
 * for a win that came before.
 */
import { sanitizeIdentity } from "../core/api/index.ts";
import type { KubeClient } from "../k8s/client/index.ts";
import { LeaderElector } from "../k8s/runtime/index.ts";
import { earlyLoop, type EarlyLoop } from "../manager/index.ts";
import type { Logger } from "../telemetry/log.ts";
import { messageOf } from "../core/errors.ts";

/** Lease timings in ms (runtime-spec §6: 15 s / 10 s / 2 s). */
export interface LeaseTimings {
  durationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}

/** Default Lease timings (runtime-spec §6, §13.1). */
export const DEFAULT_LEASE_TIMINGS: LeaseTimings = { durationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 };

/** Leadership state of one module process, set by the campaign ({@link leaseCampaign}). */
export class Leadership {
  #leading = false;
  #leaderKnown = false;
  readonly #listeners: ((leading: boolean) => void)[] = [];

  /** True while this pod holds the Lease. */
  get leading(): boolean {
    return this.#leading;
  }

  /** True once any holder of the Lease was observed (this pod or another): a /readyz check. */
  get leaderKnown(): boolean {
    return this.#leaderKnown;
  }

  /** {@link leading} as a function, for the parts that take an `isLeader` callback. */
  readonly isLeader = (): boolean => this.#leading;

  /**
   * Calls `listener` on every later change, in subscription order; a win before the call is not
   * replayed (read {@link leading}). Listeners must not throw (the elector's callbacks must not).
   */
  onChange(listener: (leading: boolean) => void): void {
    this.#listeners.push(listener);
  }

  /** The campaign won (elector `onStartedLeading`). */
  started(): void {
    this.#set(true);
  }

  /** The Lease was lost or released (elector `onStoppedLeading`). */
  stopped(): void {
    this.#set(false);
  }

  /** A holder was observed (elector `onNewLeader`). */
  observed(): void {
    this.#leaderKnown = true;
  }

  #set(leading: boolean): void {
    this.#leading = leading;
    for (const l of this.#listeners) l(leading);
  }
}

/** Options of {@link leaseCampaign}. */
export interface LeaseCampaignOptions {
  kube: KubeClient;
  /** Namespace of the Lease. */
  namespace: string;
  /** Sanitized module name; the Lease is `<moduleName>-lock`. */
  moduleName: string;
  /** Pod name (`HOSTNAME`); the identity is `sanitizeIdentity(hostname)` (runtime-spec §6). */
  hostname: string;
  timings: LeaseTimings;
  /** Receives the elector's events. */
  leadership: Leadership;
  log: Logger;
}

/** The Lease name of a module: `<sanitized module>-lock` (runtime-spec §6). */
export function leaseName(moduleName: string): string {
  return `${moduleName}-lock`;
}

/**
 * Starts campaigning for the Lease now (the first get leaves with this call's microtasks) and
 * returns it as an {@link EarlyLoop}: the manager adopts it in group `election`; a start-up that
 * fails before that calls `cancel` (the Lease is released).
 */
export function leaseCampaign(o: LeaseCampaignOptions): EarlyLoop {
  const name = leaseName(o.moduleName);
  const identity = sanitizeIdentity(o.hostname);
  return earlyLoop("leader election", (signal) =>
    new LeaderElector({
      client: o.kube,
      namespace: o.namespace,
      name,
      identity,
      leaseDurationMs: o.timings.durationMs,
      renewDeadlineMs: o.timings.renewDeadlineMs,
      retryPeriodMs: o.timings.retryPeriodMs,
      onStartedLeading: () => {
        o.log.info({ lease: name, identity }, "started leading");
        o.leadership.started();
      },
      onStoppedLeading: () => {
        o.log.info({ lease: name }, "stopped leading");
        o.leadership.stopped();
      },
      onNewLeader: (id) => {
        o.leadership.observed();
        o.log.info({ leader: id }, "leader observed");
      },
      onError: (err) => o.log.debug({ err: messageOf(err) }, "lease request failed"),
    }).run(signal),
  );
}
