/**
 * Component files loaded at run time, in addition to the bundled set: by the compiled binary (and
 * so the image) as well as from source. Shared by cluster mode (watched, below) and local mode
 * (src/local/component-files.ts calls these).
 *
 * - `import … from "tinyhost"` (and `"typebox"`) resolves to the SDK embedded in this process: a
 *   Bun runtime plugin serves them as virtual modules (`build.module`), which works inside a
 *   `bun build --compile` binary, where no `node_modules` exists (verified by
 *   test/integration/binary-components.test.ts);
 * - TypeScript is transpiled by Bun's loader on import;
 * - a file that fails is reported with its path and skipped; the others load;
 * - re-import drops the file from Bun's module registry first (a query-string cache buster is
 *   normalised away in Bun 1.4); helpers it imports keep their first version.
 */
import { existsSync, readFileSync, realpathSync, statSync, watch, type FSWatcher } from "node:fs";
import { isAbsolute, join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import * as sdk from "../sdk/index.ts";
import * as typebox from "typebox";
import type { ComponentDefinition } from "../core/component.ts";
import { componentOf } from "../runtime/registry/check.ts";
import { ComponentImportError, componentLoadError, RegistryError } from "../runtime/registry/errors.ts";
import { listComponentFiles } from "../runtime/registry/files.ts";
import { shownPath } from "../telemetry/shown-path.ts";
import type { ComponentCatalog } from "../runtime/registry/catalog.ts";
import { startInterval } from "../core/timer.ts";

/** One loaded component file. */
export interface LoadedComponent {
  /** Its default export. */
  definition: ComponentDefinition;
  /** Absolute path. */
  file: string;
  /** Path for messages (relative to the working directory when inside it). */
  source: string;
}

/** Result of loading a components directory. */
export interface ComponentDirResult {
  /** Components in file order (the first of two same-named ones wins). */
  components: LoadedComponent[];
  /** Files that failed (import error, bad default export, duplicate name). */
  errors: RegistryError[];
}

let resolverInstalled = false;

/** Makes `"tinyhost"` and `"typebox"` importable from any file (idempotent). */
export function installSdkResolver(): void {
  if (resolverInstalled) return;
  resolverInstalled = true;
  Bun.plugin({
    name: "tinyhost-sdk",
    setup(build) {
      build.module("tinyhost", () => ({ exports: { ...sdk }, loader: "object" }));
      build.module("typebox", () => ({ exports: { ...typebox }, loader: "object" }));
    },
  });
}

/** Real path each file had when last imported: Bun caches a module under it. */
const realPaths = new Map<string, string>();

/**
 * Drops `abs` from Bun's module registry, under its own path and under the real path it had when
 * imported (the import goes to the real path, see below).
 */
function forget(abs: string): void {
  delete require.cache[abs];
  const before = realPaths.get(abs);
  if (before) delete require.cache[before];
  try {
    const now = realpathSync(abs);
    delete require.cache[now];
    realPaths.set(abs, now);
  } catch {
    realPaths.delete(abs);
  }
}

/**
 * Imports (or re-imports, dropping the cached module first) one component file.
 * @throws ComponentImportError `COMPONENT_IMPORT_FAILED` naming the file when evaluating it throws
 *   (a syntax error as `file:line:col: message`); InvalidComponentFileError `INVALID_COMPONENT`
 *   when its default export is not a component.
 */
export async function importComponentFile(file: string): Promise<LoadedComponent> {
  installSdkResolver();
  const abs = resolve(file);
  const source = shownPath(abs);
  forget(abs);
  // Import the real path: a ConfigMap file is a link through `..data`, and Bun keeps answering an
  // import of the link's path with the module it first loaded, whatever the cache says (measured).
  let target = abs;
  try {
    target = realpathSync(abs);
  } catch {
    // missing: the import below reports it
  }
  const href = pathToFileURL(target).href.slice("file://".length);
  let mod: Record<string, unknown>;
  try {
    mod = (await import(`file://${href}`)) as Record<string, unknown>;
  } catch (cause) {
    forget(abs); // do not keep a failed evaluation around for the next attempt
    throw componentLoadError(source, cause);
  }
  return { definition: componentOf(source, mod), file: abs, source };
}

/**
 * Loads every component file under `dir` (registry rules: `**\/*.ts` minus tests and `.d.ts`).
 * A failing file is reported in `errors` and skipped; the rest load.
 * @throws RegistryError `COMPONENTS_DIR_NOT_FOUND` when `dir` is not a directory.
 */
export async function loadComponentDir(dir: string): Promise<ComponentDirResult> {
  const root = resolve(dir);
  if (!existsSync(root) || !statSync(root).isDirectory()) {
    throw new RegistryError("COMPONENTS_DIR_NOT_FOUND", `components directory not found: ${root}`, [root]);
  }
  const out: ComponentDirResult = { components: [], errors: [] };
  const byName = new Map<string, LoadedComponent>();
  for (const rel of listComponentFiles(root)) {
    try {
      const c = await importComponentFile(join(root, rel));
      const seen = byName.get(c.definition.info.name);
      if (seen) {
        out.errors.push(
          new RegistryError(
            "DUPLICATE_COMPONENT",
            `component "${c.definition.info.name}" is defined twice: in ${seen.source} and in ${c.source} (the second is ignored)`,
            [seen.source, c.source],
          ),
        );
        continue;
      }
      byName.set(c.definition.info.name, c);
      out.components.push(c);
    } catch (err) {
      out.errors.push(err instanceof RegistryError ? err : new ComponentImportError(rel, err));
    }
  }
  return out;
}

/** Options of {@link watchComponentDir}. */
export interface WatchComponentDirOptions {
  /** Where file components go (origin `file:<path>`); a file may replace a bundled component of the same name. */
  catalog: ComponentCatalog;
  /** Bundled components a file may override (origin string the catalog holds for them). */
  overridable?: (origin: string) => boolean;
  /** Problems and changes, one line each. */
  log: { info(obj: object, msg?: string): void; warn(obj: object, msg?: string): void };
  /** Rescan period, ms, besides file-system events (kubelet's atomic `..data` swap is a rename). Default 2000. */
  rescanMs?: number;
}

/** A running watch; {@link stop} ends it. */
export interface ComponentDirWatch {
  /** Resolves after the first scan; `errors` are the files that failed it. */
  readonly ready: Promise<RegistryError[]>;
  /** Rescans now (tests, and the watcher itself). */
  rescan(): Promise<RegistryError[]>;
  stop(): void;
}

/**
 * Loads `dir` into the catalog and keeps it in sync: a new or changed file (by content) is
 * imported and installed, so its nodes pick the new version up at once; a removed file's
 * component is uninstalled; a file that fails to import is logged with its path and, when it had
 * loaded before, its previous version keeps serving.
 * @throws RegistryError `COMPONENTS_DIR_NOT_FOUND` (from the returned `ready`) when `dir` is missing.
 */
export function watchComponentDir(dir: string, o: WatchComponentDirOptions): ComponentDirWatch {
  const root = resolve(dir);
  const seen = new Map<string, { content: string; names: string[] }>(); // abs file → last content and the names it installed
  let scanning: Promise<RegistryError[]> | undefined;
  let again = false;

  const scanOnce = async (): Promise<RegistryError[]> => {
    if (!existsSync(root) || !statSync(root).isDirectory())
      throw new RegistryError("COMPONENTS_DIR_NOT_FOUND", `components directory not found: ${root}`, [root]);
    const errors: RegistryError[] = [];
    const files = new Set(listComponentFiles(root).map((rel) => join(root, rel)));
    for (const [file, entry] of seen) {
      if (files.has(file)) continue;
      seen.delete(file);
      for (const name of entry.names) await o.catalog.remove(name, `file:${file}`);
      o.log.info({ file: shownPath(file), components: entry.names }, "component file removed; its components are uninstalled");
    }
    for (const file of files) {
      let content: string;
      try {
        content = readFileSync(file, "utf8");
      } catch {
        continue; // vanished between listing and reading: the next scan sees it gone
      }
      const before = seen.get(file);
      if (before && before.content === content) continue;
      const origin = `file:${file}`;
      try {
        const c = await importComponentFile(file);
        const name = c.definition.info.name;
        const holder = o.catalog.get(name);
        if (holder && holder.origin !== origin && o.overridable?.(holder.origin)) await o.catalog.remove(name, holder.origin);
        for (const old of before?.names ?? []) if (old !== name) await o.catalog.remove(old, origin);
        const refused = o.catalog.put(c.definition, origin);
        if (refused) throw new RegistryError("DUPLICATE_COMPONENT", `${c.source}: ${refused}`, [c.source]);
        seen.set(file, { content, names: [name] });
        o.log.info({ file: c.source, component: name }, before ? "component file changed; reinstalled" : "component file loaded");
      } catch (err) {
        const e = err instanceof RegistryError ? err : new ComponentImportError(shownPath(file), err);
        seen.set(file, { content, names: before?.names ?? [] }); // report once per content
        errors.push(e);
        o.log.warn(
          { file: shownPath(file), code: e.code, err: e.message },
          before ? "component file failed to load; the previous version keeps serving" : "component file failed to load; skipped",
        );
      }
    }
    return errors;
  };

  const rescan = (): Promise<RegistryError[]> => {
    if (scanning) {
      again = true;
      return scanning;
    }
    scanning = scanOnce().finally(() => {
      scanning = undefined;
      if (again) {
        again = false;
        void rescan().catch(() => {});
      }
    });
    return scanning;
  };

  const ready = rescan();
  let watcher: FSWatcher | undefined;
  let debounce: ReturnType<typeof setTimeout> | undefined;
  try {
    watcher = watch(root, { recursive: true }, () => {
      clearTimeout(debounce);
      debounce = setTimeout(() => void rescan().catch(() => {}), 100);
    });
  } catch {
    watcher = undefined; // the periodic rescan still runs
  }
  const timer = startInterval(o.rescanMs ?? 2000, () => void rescan().catch(() => {}), { unref: true });
  return {
    ready,
    rescan,
    stop() {
      timer.cancel();
      clearTimeout(debounce);
      watcher?.close();
    },
  };
}
