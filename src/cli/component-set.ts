/**
 * The component set a command serves with `--components <dir>`: the bundled components
 * (src/loader/static.ts) plus the files of the directory, a file replacing a bundled
 * component of its name — as `run --components` serves them (src/loader/runtime-files.ts).
 */
import { createRegistry, type Registry } from "../runtime/registry/index.ts";
import { loadComponentDir } from "../loader/runtime-files.ts";
import type { ComponentDefinition } from "../core/component.ts";
import type { ComponentNeeds } from "../provision/rbac-values.ts";

/**
 * The bundled set, plus the component files of `dir` when given.
 * @param onSkipped - told about each broken file, which is skipped (`message [code]`).
 * @throws RegistryError when the bundled set cannot be loaded or `dir` cannot be read.
 */
export async function bundledWithFiles(dir: string | undefined, onSkipped: (problem: string) => void): Promise<Registry> {
  const { loadStaticRegistry } = await import("../loader/static.ts");
  const bundled = loadStaticRegistry();
  if (dir === undefined) return bundled;
  const files = await loadComponentDir(dir);
  for (const e of files.errors) onSkipped(`${e.message} [${e.code}]`);
  const fromFiles = new Set(files.components.map((c) => c.definition.info.name));
  return createRegistry([
    ...bundled
      .list()
      .filter((d) => !fromFiles.has(d.info.name))
      .map((d) => ({ definition: d, source: bundled.source(d.info.name) })),
    ...files.components.map((c) => ({ definition: c.definition, source: c.source })),
  ]);
}

/** What the RBAC builders read of each component (src/provision/rbac-values.ts), in registration order. */
export function componentNeeds(defs: readonly ComponentDefinition[]): ComponentNeeds[] {
  return defs.map((d) => ({
    name: d.info.name,
    usesClient: typeof d.instance().hooks.onClient === "function",
    ...(d.requirements ? { requirements: d.requirements } : {}),
  }));
}

/**
 * The needs of the components a provisioned module serves: the bundled set plus the files of `dir`
 * (`provision`, `rbac`). Every file must load: one skipped would leave its requirements ungranted.
 * @throws Error listing the files that did not load; RegistryError when `dir` is not a directory.
 */
export async function provisionedComponentNeeds(dir: string | undefined): Promise<ComponentNeeds[]> {
  const broken: string[] = [];
  const registry = await bundledWithFiles(dir, (p) => broken.push(p));
  if (broken.length > 0) {
    throw new Error(
      `${broken.length} component file${broken.length === 1 ? "" : "s"} did not load, so their requirements cannot be granted:\n  ${broken.join("\n  ")}`,
    );
  }
  return componentNeeds(registry.list());
}
