/**
 * `tinyhost tools`: the Go CLI's developer tools where they mean something for tinyhost
 * (Go cli/tools.go, rbac-values.go, components-info.go):
 *
 * - `tools rbac-values [--with-cr-helpers] [--dir <dir>]` — the chart values overlay (`rbac:`)
 *   this module's components need (src/provision/rbac-values.ts); prints nothing when none.
 * - `tools components-info [--json] [--dir <dir>]` — the discovery listing a module repository's
 *   `components.yaml` carries: `[{name, description, info, tags}]`, empty fields left out.
 *
 * `tools rbac-check` is not offered: it resolves controller-runtime calls in a Go module's source.
 * Flags: the shared parser of ../flags.ts. Exit codes: 0 done, 1 the components cannot be loaded, 2 usage error.
 */
import { resolve } from "node:path";
import YAML from "yaml";
import type { CommandRunner } from "../cli.ts";
import { FlagError, parseFlags } from "../flags.ts";
import { componentsDefault, isCompiledBinary } from "../components-source.ts";
import { describeComponent, discoverComponents, RegistryError, type Registry } from "../../runtime/registry/index.ts";
import { chartRbacValues } from "../../provision/rbac-values.ts";

/** Help text of `tinyhost tools`. */
export function toolsUsage(compiled = isCompiledBinary()): string {
  return `Usage: tinyhost tools <tool> [flags]

Tools:
  rbac-values       print the tinysystems-operator chart values overlay (rbac:) these components
                    need; nothing when the chart's own rules suffice
                      --with-cr-helpers  the components use the CR helpers (flows, projects, pages, scenarios)
  components-info   list the components (name — description); --json: the repository index shape
                    [{name, description, info, tags}]

Flags of both:
  --dir <dir>       components directory (${componentsDefault({ compiled, bundledFallback: false })})
  -h, --help        this text`;
}

/** The components: the static registry in a compiled binary without --dir, else the files of the directory. */
async function loadComponents(dir: string | undefined): Promise<Registry> {
  if (dir === undefined && Bun.isStandaloneExecutable) {
    const { loadStaticRegistry } = await import("../../runtime/registry/static.ts");
    return loadStaticRegistry();
  }
  return discoverComponents(resolve(dir ?? "components"));
}

function parse(args: string[], withCrHelpers: boolean) {
  return parseFlags(args, {
    dir: { type: "string", valueName: "a directory" },
    json: { type: "boolean" },
    help: { type: "boolean", short: "h" },
    ...(withCrHelpers ? { "with-cr-helpers": { type: "boolean" as const } } : {}),
  }).values as { dir?: string; json?: boolean; help?: boolean; "with-cr-helpers"?: boolean };
}

/** The `tools` sub-command. */
export const toolsCommand: CommandRunner = {
  name: "tools",
  async run(args) {
    const [tool, ...rest] = args;
    if (tool === undefined || tool === "--help" || tool === "-h" || tool === "help") {
      console.log(toolsUsage());
      return 0;
    }
    if (tool !== "rbac-values" && tool !== "components-info") {
      console.error(`tinyhost tools: unknown tool ${JSON.stringify(tool)}\n\n${toolsUsage()}`);
      return 2;
    }
    let flags;
    try {
      flags = parse(rest, tool === "rbac-values");
      if (tool === "rbac-values" && flags.json) throw new FlagError('unknown argument "--json"');
    } catch (e) {
      if (!(e instanceof FlagError)) throw e;
      console.error(`tinyhost tools ${tool}: ${e.message}\n\n${toolsUsage()}`);
      return 2;
    }
    if (flags.help) {
      console.log(toolsUsage());
      return 0;
    }
    let registry: Registry;
    try {
      registry = await loadComponents(flags.dir);
    } catch (e) {
      const code = e instanceof RegistryError ? ` [${e.code}]` : "";
      console.error(`tinyhost tools ${tool}: ${e instanceof Error ? e.message : String(e)}${code}`);
      return 1;
    }
    const defs = registry.list();
    if (tool === "rbac-values") {
      const needs = defs.map((d) => ({ name: d.info.name, usesClient: typeof d.instance().hooks.onClient === "function" }));
      const values = chartRbacValues(needs, { withCrHelpers: flags["with-cr-helpers"] === true });
      if (values) process.stdout.write(YAML.stringify(values, { indentSeq: false }));
      return 0;
    }
    const list = defs.map(describeComponent);
    if (flags.json) {
      const shape = list.map((c) => ({
        name: c.name,
        ...(c.description ? { description: c.description } : {}),
        ...(c.info ? { info: c.info } : {}),
        ...(c.tags.length > 0 ? { tags: c.tags } : {}),
      }));
      console.log(JSON.stringify(shape, null, 2));
    } else {
      for (const c of list) console.log(`${c.name} - ${c.description}`);
      console.log(`${list.length} component${list.length === 1 ? "" : "s"} registered`);
    }
    return 0;
  },
};
