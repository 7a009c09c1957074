/**
 * The components directory of local mode, file by file, with hot reload: which file provides which
 * component, the files that failed (shown as problems until fixed), and what a changed, renamed or
 * deleted file does to the running nodes. Importing one file is src/loader/runtime-files.ts.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { Scheduler } from "../runtime/scheduler/scheduler.ts";
import { toError } from "../core/result.ts";
import { importComponentFile, loadComponentDir, type ComponentDirResult, type LoadedComponent } from "../loader/runtime-files.ts";
import { shownPath } from "../telemetry/shown-path.ts";
import { LocalStartError } from "./errors.ts";

/** What {@link ComponentFiles} needs from the local host. */
export interface ComponentFilesHost {
  /** Where components are installed and uninstalled. */
  scheduler: Scheduler;
  /** Prints one terminal line. */
  line(text: string): void;
  /** Reconciles every declared node of component `name` again; returns their names. */
  recreate(name: string): string[];
}

/**
 * The components directory of local mode, file by file: which file provides which component, the
 * files that failed (shown as problems until fixed), and hot reload. The result of a reload is
 * what a fresh start would run: a name a file no longer provides (renamed, deleted, now invalid or
 * a duplicate) is uninstalled and its nodes report the unknown component; a file that fails to
 * evaluate (a syntax error while typing) is reported and its previous version keeps running.
 */
export class ComponentFiles {
  /** Absolute file → the component name it provides. */
  readonly files = new Map<string, string>();
  /** Absolute file (or a message key) → why it is not loaded. */
  readonly errors = new Map<string, string>();

  /** @param host - the scheduler to install into and the host's callbacks. */
  constructor(readonly host: ComponentFilesHost) {}

  /**
   * Loads every file of `dir` into the scheduler; failing files become {@link errors}.
   * @throws LocalStartError when `dir` is not a directory.
   */
  async load(dir: string): Promise<void> {
    let result: ComponentDirResult;
    try {
      result = await loadComponentDir(dir);
    } catch (err) {
      throw new LocalStartError(toError(err).message, { cause: err });
    }
    for (const c of result.components) {
      this.host.scheduler.install(c.definition);
      this.files.set(c.file, c.definition.info.name);
    }
    // Keyed by the refused file: the last one named (a duplicate names the kept file first).
    for (const e of result.errors) this.errors.set(e.files.length ? resolve(e.files.at(-1)!) : e.message, e.message);
  }

  /** The registered component names, sorted, or `none`. */
  known(extra: readonly string[] = []): string {
    const names = new Set([...this.files.values(), ...extra]);
    return names.size ? [...names].sort().join(", ") : "none";
  }

  /**
   * Re-imports `file` and recreates the nodes of its component (see the class comment).
   * @returns names of the nodes recreated.
   */
  async reload(file: string): Promise<string[]> {
    const abs = resolve(file);
    const previous = this.files.get(abs);
    if (!existsSync(abs)) {
      this.errors.delete(abs);
      this.files.delete(abs);
      if (previous !== undefined) await this.#retire(previous, `${shownPath(abs)} was removed`, abs);
      return [];
    }
    let loaded: LoadedComponent;
    try {
      loaded = await importComponentFile(abs);
    } catch (err) {
      this.errors.set(abs, toError(err).message);
      // INVALID_COMPONENT: the file evaluated but exports no valid component (e.g. an invalid name).
      if (previous !== undefined && (err as { code?: unknown }).code === "INVALID_COMPONENT") {
        this.files.delete(abs);
        await this.#retire(previous, `${shownPath(abs)} no longer defines a valid component`, abs);
      }
      return [];
    }
    this.errors.delete(abs);
    const name = loaded.definition.info.name;
    const owner = [...this.files].find(([f, n]) => n === name && f !== abs);
    if (owner) {
      this.errors.set(abs, `${loaded.source}: component "${name}" is already defined in ${shownPath(owner[0])}; ignored`);
      this.files.delete(abs);
      if (previous !== undefined) await this.#retire(previous, `${loaded.source} now defines "${name}"`, abs);
      return [];
    }
    this.files.set(abs, name);
    this.host.scheduler.install(loaded.definition);
    const nodes = this.host.recreate(name);
    this.host.line(`reloaded ${loaded.source} (${name})${nodes.length ? `: recreating ${nodes.length} node${nodes.length === 1 ? "" : "s"}` : ""}`);
    if (previous !== undefined && previous !== name) await this.#retire(previous, `${loaded.source} now defines "${name}"`, abs);
    return nodes;
  }

  /**
   * Component `name` lost its file: unless another file still provides it, uninstall it (its
   * runners stop without onDestroy — the nodes still exist) and reconcile its nodes, which then
   * report the unknown component. Files refused earlier (e.g. as a duplicate of `name`) are
   * retried, since one of them may provide it now.
   */
  async #retire(name: string, why: string, except: string): Promise<void> {
    if ([...this.files.values()].includes(name)) return;
    const stopped = await this.host.scheduler.uninstall(name);
    this.host.line(`component ${name} is gone: ${why}${stopped.length ? `; stopped ${stopped.length} node${stopped.length === 1 ? "" : "s"}` : ""}`);
    this.host.recreate(name);
    for (const f of [...this.errors.keys()]) {
      if (f !== except && !this.files.has(f) && existsSync(f)) await this.reload(f);
    }
  }
}
