/**
 * The controller runtime: watch pipeline (watcher → reflector/store → work queue → controller) and
 * Lease leader election. Layout follows kube-rs `kube-runtime` and controller-runtime's packages.
 */
export { systemClock, type Clock } from "./clock.ts";
export { Backoff, BackoffOptionsError, type BackoffOptions } from "./backoff.ts";
export {
  resourceSource,
  objectKey,
  splitKey,
  type WatchSource,
  type ListWatchClient,
  type ListPageOptions,
  type WatchRequestOptions,
  type ResourceSourceOptions,
} from "./source.ts";
export {
  Watcher,
  watcher,
  WatchStatusError,
  stripManagedFields,
  type WatcherEvent,
  type WatcherOptions,
  type WatcherStats,
  type RestartReason,
} from "./watcher.ts";
export { ObjectStore, type Store } from "./store.ts";
export { reflector, type ChangeEvent } from "./reflector.ts";
export {
  ItemExponentialRateLimiter,
  BucketRateLimiter,
  MaxOfRateLimiter,
  defaultControllerRateLimiter,
  type RateLimiter,
} from "./ratelimiter.ts";
export { WorkQueue, type WorkQueueOptions, type WorkQueueStats } from "./workqueue.ts";
export { generationChanged, generationOrStatusMetadataChanged, type Predicate } from "./predicates.ts";
export {
  Controller,
  ControllerError,
  type ControllerOptions,
  type ControllerStats,
  type Reconciler,
  type ReconcileContext,
  type ReconcileResult,
} from "./controller.ts";
export { LeaderElector, LeaderElectionError, type LeaderElectorOptions } from "./leader/elector.ts";
export { leaseLock, formatMicroTime, type LeaseLock, type LeaseClient, type LeaseSpec } from "./leader/lock.ts";
