/**
 * The start-up stages before the manager (kubeconfig, components, transport, scheduler, health
 * server, a flag): each is timed and logged, and a failure becomes a {@link ModuleStartError}
 * naming the stage — the manager names a runnable the same way (`ManagerStartError`).
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { Registry } from "../runtime/registry/index.ts";
import { discoverComponents } from "../loader/discover.ts";
import type { Logger } from "../telemetry/log.ts";
import { ModuleStartError } from "./start-error.ts";
import { messageOf } from "../core/errors.ts";

export { ModuleStartError };

/** Runs one named stage: logs its time (`start: <name>`) or its failure. */
export type Stage = <T>(name: string, fn: () => Promise<T> | T) => Promise<T>;

/** A {@link Stage} runner logging to `log`; a failure rejects with {@link ModuleStartError} naming the stage. */
export function stages(log: Logger): Stage {
  return async <T>(name: string, fn: () => Promise<T> | T): Promise<T> => {
    const t0 = performance.now();
    try {
      const out = await fn();
      log.info({ stage: name, ms: Math.round(performance.now() - t0) }, `start: ${name}`);
      return out;
    } catch (err) {
      log.error({ stage: name, err: messageOf(err) }, `start failed: ${name}`);
      throw new ModuleStartError(name, err);
    }
  };
}

/**
 * `fn()` as a synchronous stage (a flag or env value parsed before anything starts, so a bad value
 * stops nothing half-way).
 * @throws ModuleStartError naming `name` with `fn`'s error.
 */
export function checked<T>(name: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw new ModuleStartError(name, err);
  }
}

/** Something to undo when a later stage fails (a wire that opened). */
export interface Closable {
  close(graceMs: number): Promise<void>;
}

/**
 * Waits for stages that run at once and returns their values in order. When one failed, the first
 * failing one in that order is thrown, after closing (with `graceMs`) what the others opened.
 * @throws the first failure (a {@link ModuleStartError} when the stage ran through {@link stages}).
 */
export async function allStages<const T extends readonly unknown[]>(
  running: { [K in keyof T]: Promise<T[K]> },
  closeOnFailure: (values: Partial<T>) => Promise<void>,
): Promise<T> {
  const settled = await Promise.allSettled(running);
  const failed = settled.find((r) => r.status === "rejected");
  if (!failed) return settled.map((r) => (r as PromiseFulfilledResult<unknown>).value) as unknown as T;
  await closeOnFailure(settled.map((r) => (r.status === "fulfilled" ? r.value : undefined)) as unknown as Partial<T>);
  throw failed.reason;
}

/**
 * The bundled components: `null` (files come from `--components`) or a compiled binary → the
 * static registry; else `./components` when it exists (dev), else the static registry.
 * @throws what `discoverComponents` throws for `./components` (an import that fails, an invalid or
 *   duplicate component: src/loader/discover.ts).
 */
export async function loadRegistry(dir: string | undefined | null): Promise<Registry> {
  if (dir === null || (dir === undefined && Bun.isStandaloneExecutable)) return await staticRegistry();
  const path = resolve(dir ?? "components");
  if (dir === undefined && !existsSync(path)) return await staticRegistry();
  return discoverComponents(path);
}

async function staticRegistry(): Promise<Registry> {
  const { loadStaticRegistry } = await import("../loader/static.ts");
  return loadStaticRegistry();
}
