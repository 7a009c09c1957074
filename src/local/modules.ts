/**
 * Which modules local mode runs: a flow exported from the platform mixes the user's module with the
 * platform's own (`tinysystems-common-module-v0`, `…-http-module-v0`, `…-encoding-module-v0`), and
 * tinyhost bundles every component of those three, so a directory runs with one command and no
 * renaming. Each module keeps its name (its nodes' status says which module ran them) and its
 * component set (a common-module node cannot run `csv_decode`, as in the cluster); hops between them
 * go through the in-process transport.
 * Rule: without `--name` every module of the directory runs; with `--name A`, A and the platform
 * modules run, and a hop to a node of any other module fails at once naming the flag to use.
 */
import { nameMatches, parseFullName, sanitizeResourceName } from "../core/api/naming.ts";
import { notInPlatformModule, platformModule } from "../core/api/platform-modules.ts";
import type { NodeManifest } from "./manifests.ts";

export { PLATFORM_MODULES, platformModule, type PlatformModule } from "../core/api/platform-modules.ts";

/** What {@link LocalModules} reads live. */
export interface LocalModulesHost {
  /** The module given with `--name`, or the one chosen from the manifests (unsanitized). */
  primary: string;
  /** True when `--name` was given: then only it and the platform modules run. */
  explicit: boolean;
  /** The declared nodes now. */
  nodes(): Iterable<NodeManifest>;
  /** True when component `name` is registered (bundled, or a components directory's). */
  installed(name: string): boolean;
  /** The registered component names, for messages (`a, b` or `none`). */
  known(): string;
}

/** Ownership and refusals of local mode's modules (see the module comment). */
export class LocalModules {
  /** @param h what is read live (see {@link LocalModulesHost}). */
  constructor(readonly h: LocalModulesHost) {}

  /** True when this process runs nodes whose name's module segment is `segment`. */
  runs(segment: string): boolean {
    return !this.h.explicit || nameMatches(segment, this.h.primary) || platformModule(segment) !== undefined;
  }

  /** The sanitized module segments of `nodes` (default the declared nodes), sorted, the primary's first. */
  segments(nodes: Iterable<NodeManifest> = this.h.nodes()): string[] {
    const out = new Set<string>();
    for (const n of nodes) {
      const s = segmentOf(n.node.metadata.name);
      if (s) out.add(s);
    }
    const primary = sanitizeResourceName(this.h.primary);
    return [...out].sort((a, b) => Number(nameMatches(b, primary)) - Number(nameMatches(a, primary)) || a.localeCompare(b));
  }

  /**
   * Why a hop to a node of module `segment` cannot be delivered, or undefined when this process
   * runs that module.
   */
  notRun(segment: string): string | undefined {
    if (this.runs(segment)) return undefined;
    return `module ${segment} is not run here: this process was started with --name ${this.h.primary}, which runs only that module and the platform's common, http and encoding modules; run without --name to run every module of the directory`;
  }

  /**
   * Why node `name` (component `component`) cannot run, or undefined when it can: a component its
   * platform module does not have, a module other than the primary none of whose components
   * tinyhost has (a Go module that must run in a cluster), or an unknown component.
   */
  refusal(name: string, component: string): string | undefined {
    const segment = segmentOf(name);
    const platform = segment === undefined ? undefined : platformModule(segment);
    if (platform) {
      if (platform.components.includes(component) && this.h.installed(component)) return undefined;
      return notInPlatformModule(platform, component, this.h.installed(component));
    }
    if (this.h.installed(component)) return undefined;
    // The user's own module gets the plain message (a typo or a renamed component); another module
    // none of whose components tinyhost has is a Go module that must run elsewhere.
    if (segment !== undefined && !nameMatches(segment, this.h.primary) && !this.#anyKnown(segment)) {
      const missing = [...new Set([...this.h.nodes()].filter((n) => segmentOf(n.node.metadata.name) === segment).map((n) => n.node.spec.component))].sort();
      return (
        `module ${segment} cannot run in tinyhost: none of its components (${missing.join(", ")}) is bundled or in the components directory. ` +
        `Run the flow on a cluster where that module is installed, or write its components (tinyhost new component ${missing[0]})`
      );
    }
    return `component ${JSON.stringify(component)} is not registered (known: ${this.h.known()})`;
  }

  /**
   * True when module `segment` is run here but tinyhost can serve none of its nodes: not the
   * primary, not a platform module, and no declared node of it has a registered component or one
   * of `declared` (components the directory declares as TinyComponents, not installed yet).
   */
  unservable(segment: string, declared: ReadonlySet<string> = new Set()): boolean {
    if (!this.runs(segment) || nameMatches(segment, this.h.primary) || platformModule(segment) !== undefined) return false;
    for (const n of this.h.nodes()) if (segmentOf(n.node.metadata.name) === segment && declared.has(n.node.spec.component)) return false;
    return !this.#anyKnown(segment);
  }

  /** True when some declared node of module `segment` has a registered component. */
  #anyKnown(segment: string): boolean {
    for (const n of this.h.nodes()) if (segmentOf(n.node.metadata.name) === segment && this.h.installed(n.node.spec.component)) return true;
    return false;
  }
}

/** The module segment of a node name, or undefined for a name that is not `<prefix>.<module>.<component>…`. */
export function segmentOf(name: string): string | undefined {
  try {
    return parseFullName(name).module;
  } catch {
    return undefined;
  }
}
