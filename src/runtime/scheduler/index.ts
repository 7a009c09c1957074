/** The scheduler: runners per node and hop routing (runtime-spec §3). */
export { Scheduler, MAX_MESSAGE_DEPTH, DEFAULT_READY_TIMEOUT_MS, type SchedulerOptions } from "./scheduler.ts";
export { ComponentNotRegisteredError, NodeNotFoundError, PortNotReadyError, RouteError, InstallError } from "./errors.ts";
export { chainHandler, chainTracer, type HopMiddleware } from "./middleware.ts";
