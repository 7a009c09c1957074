/**
 * The running half of `tinyhost run` in a cluster: tracing, the last-resort handler, the module,
 * signals, the final trace flush. Loaded by ./run-cluster.ts after the first start-up stage began
 * (src/operator/early.ts), so that loading this file's imports — the runtime — overlaps with the
 * first requests.
 */
import type { EarlyStart } from "../../operator/early.ts";
import { startModule, type ModuleOptions } from "../../operator/index.ts";
import { logger } from "../../telemetry/log.ts";
import { setupTracing, type TracingHandle } from "../../telemetry/tracing.ts";
import { installLastResort } from "../last-resort.ts";
import type { StopSignals } from "./stop-signals.ts";
import { messageOf } from "../../core/errors.ts";

/** Hard bound on shutdown, ms: inside the chart's 10 s termination grace period (runtime-spec §12). */
export const SHUTDOWN_LIMIT_MS = 9_000;

/**
 * Sets up tracing, starts the module on the begun first stage and runs it until SIGTERM/SIGINT
 * (exit 0) or a fatal error (exit 1).
 * @param early - the first stage, begun by the caller with `options`.
 * @param signals - SIGTERM/SIGINT, caught since the caller's first line; until the module runs,
 *   the caller's handler ends start-up, then this function's orderly stop takes over.
 * @returns the exit code: 0 stopped, 1 start-up or fatal error.
 */
export async function runModule(
  options: ModuleOptions,
  early: EarlyStart,
  signals: StopSignals,
  env: Record<string, string | undefined> = options.env,
): Promise<number> {
  let tracing: TracingHandle;
  try {
    // Before the transports exist, so every hop they send carries traceparent (runtime-spec §9.1).
    tracing = await setupTracing({ serviceName: options.name, serviceVersion: options.version, env });
  } catch (err) {
    console.error(`tinyhost run: ${messageOf(err)}`);
    await early.cancel(); // the campaign began before this: release the Lease
    signals.dispose();
    return 1;
  }
  // Before any component loads: a throw that escaped every node guard is logged and counted, and
  // the module keeps serving its other nodes (src/cli/last-resort.ts).
  const removeLastResort = installLastResort(logger);
  let module;
  try {
    module = await startModule(options, early);
  } catch (err) {
    logger.fatal({ err: messageOf(err) }, "tinyhost run: start-up failed");
    removeLastResort();
    signals.dispose();
    await flushTraces(tracing);
    return 1;
  }
  const running = module;
  const onSignal = (signal: string) => {
    logger.info({ signal }, "signal received");
    // The kubelet kills us after the grace period anyway; leave before it does, saying so.
    setTimeout(() => {
      logger.error({ limitMs: SHUTDOWN_LIMIT_MS }, "shutdown exceeded its time limit; exiting");
      process.exit(1);
    }, SHUTDOWN_LIMIT_MS).unref();
    void running.stop(signal);
  };
  signals.onSignal(onSignal); // a signal that came while startModule ran stops the module now
  try {
    return await running.done;
  } finally {
    signals.dispose();
    removeLastResort();
    await flushTraces(tracing);
  }
}

/**
 * Flushes buffered spans at exit. A collector that cannot be reached (the chart's default
 * `OTLP_DSN` names `tinysystems-otel-collector`, which may not be installed) makes the last export
 * fail: that is logged, and never turns a clean stop into exit code 1.
 */
async function flushTraces(tracing: TracingHandle): Promise<void> {
  try {
    await tracing.shutdown();
  } catch (err) {
    logger.warn({ err: messageOf(err) }, "tinyhost run: the last trace export failed");
  }
}
