/**
 * `tinyhost components [--json] [--dir <dir>]`: lists the components this module would serve and
 * their ports — the `tools components-info` of the Go CLI (runtime-spec §9), extended with ports
 * in the `TinyModule.status.components[]` shape (runtime-spec §5.2). As there, an agent tool
 * (`agentTool`, runtime-spec §3.4) gets the tag `agent_tool` and its tool description as `info`
 * (Go cli/components.go) — the platform's MCP layer finds tools by that tag. (TinyModule status
 * lists the authored info and tags, as Go's does.)
 *
 * Source of components: `--dir`, else `./components` under the working directory; a compiled
 * binary without `--dir` uses its static registry.
 */
import { resolve } from "node:path";
import { platformListing } from "../platform-listing.ts";
import type { CommandRunner } from "../command.ts";
import { FlagError, parseFlags } from "../flags.ts";
import { componentsDefault, isCompiledBinary } from "../components-source.ts";
import { describeComponent, RegistryError, type ComponentDescription, type Registry } from "../../runtime/registry/index.ts";
import { discoverComponents } from "../../loader/discover.ts";
import { bundledWithFiles } from "../component-set.ts";
import { messageOf } from "../../core/errors.ts";

/**
 * Help text of `tinyhost components`, with the `--dir` default of the case it runs in (components-source.ts).
 * @param compiled true for the compiled binary's wording; default: this process.
 */
export function componentsUsage(compiled = isCompiledBinary()): string {
  return `Usage: tinyhost components [--json] [--dir <dir> | --components <dir>]

Lists every discovered component with its ports.
  --json       print [{name, description, info, tags, ports:[{name,label,source,position,schema}]}]
  --dir <dir>  list the component files in <dir> (${componentsDefault({ compiled, bundledFallback: false })})
  --components <dir>
               list the bundled components plus the files in <dir> (a file replaces a bundled
               component of its name; a broken file is reported and skipped), as \`run --components\` serves them`;
}

const POSITION_NAMES = ["top", "right", "bottom", "left"];

/** Flags of `components` (src/cli/flags.ts). */
export const COMPONENTS_FLAGS = {
  json: { type: "boolean" },
  dir: { type: "string", valueName: "a directory" },
  components: { type: "string", valueName: "a directory" },
  help: { type: "boolean", short: "h" },
} as const;

async function load(dir: string | undefined): Promise<Registry> {
  if (dir === undefined && Bun.isStandaloneExecutable) {
    // Literal specifier: bundled at build time, evaluated only here.
    const { loadStaticRegistry } = await import("../../loader/static.ts");
    return loadStaticRegistry();
  }
  return discoverComponents(resolve(dir ?? "components"));
}

/**
 * Human output: one block per component — `name — description [tags]` and its source file, then a
 * table of ports (name, label, direction, position).
 */
export function renderComponents(list: readonly ComponentDescription[], sources: ReadonlyMap<string, string>): string {
  if (list.length === 0) return "no components found";
  const blocks = list.map((c) => {
    const tags = c.tags.length > 0 ? `  [${c.tags.join(", ")}]` : "";
    const head = `${c.name} — ${c.description}${tags}\n  file: ${sources.get(c.name) ?? "?"}`;
    const rows = [
      ["PORT", "LABEL", "DIRECTION", "POSITION"],
      ...c.ports.map((p) => [p.name, p.label, p.source ? "output" : "input", POSITION_NAMES[p.position] ?? String(p.position)]),
    ];
    const widths = rows[0]!.map((_, col) => Math.max(...rows.map((r) => r[col]!.length)));
    const table = rows.map((r) => `  ${r.map((cell, col) => (col === r.length - 1 ? cell : cell.padEnd(widths[col]!))).join("  ")}`);
    return [head, ...(c.ports.length > 0 ? table : ["  (no ports)"])].join("\n");
  });
  return `${blocks.join("\n\n")}\n\n${list.length} component${list.length === 1 ? "" : "s"}`;
}

/** The `components` sub-command. Exit codes: 0 listed, 1 discovery failed, 2 usage error. */
export const componentsCommand: CommandRunner = {
  name: "components",
  async run(args) {
    if (args.includes("--help") || args.includes("-h")) {
      console.log(componentsUsage());
      return 0;
    }
    let flags;
    try {
      flags = parseFlags(args, COMPONENTS_FLAGS).values;
    } catch (e) {
      if (!(e instanceof FlagError)) throw e;
      console.error(`tinyhost components: ${e.message}\n\n${componentsUsage()}`);
      return 2;
    }
    let registry: Registry;
    let list: ComponentDescription[];
    try {
      registry =
        flags.components !== undefined
          ? await bundledWithFiles(flags.components, (p) => console.error(`tinyhost components: ${p} (skipped)`))
          : await load(flags.dir);
      list = registry.list().map(platformListing);
    } catch (e) {
      const code = e instanceof RegistryError ? ` [${e.code}]` : "";
      console.error(`tinyhost components: ${messageOf(e)}${code}`);
      return 1;
    }
    if (flags.json) {
      console.log(JSON.stringify(list, null, 2));
    } else {
      const sources = new Map(list.map((c) => [c.name, registry.source(c.name)]));
      console.log(renderComponents(list, sources));
    }
    return 0;
  },
};
