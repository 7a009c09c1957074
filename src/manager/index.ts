/**
 * The manager of runnables (controller-runtime `pkg/manager`): one process shape for cluster and
 * local mode. `src/operator/module.ts` (parts built in src/operator/) and `src/local/host.ts` add their runnables to it.
 */
export {
  Manager,
  ManagerStartError,
  ManagerStateError,
  RUNNABLE_GROUPS,
  DEFAULT_SHUTDOWN_BUDGET_MS,
  SHUTDOWN_OVERTIME_MS,
  type ManagerOptions,
  type Runnable,
  type RunnableGroup,
  type RunContext,
  type StopContext,
} from "./manager.ts";
export { loop, earlyLoop, task, onStop, type EarlyLoop, type LoopOptions } from "./runnables.ts";
export { bounded } from "../core/timer.ts";
export { httpDrain, DEFAULT_HTTP_DRAIN_MS, type NodeLifetimes } from "./http-drain.ts";
export { withStopDelay, STOP_DELAY_RESERVE_MS } from "./stop-delay.ts";
