/**
 * The module names one cluster process serves: `--name A` and each `--also B` (a deployment that
 * stands in for the Go common-module serves `--also tinysystems/common-module-v0`). Every name gets
 * its own NATS subjects / JetStream consumers (transport.ts), its TinyNodes (the node filter), its
 * TinyModule with the address and its nodes' `status.module`; they share one scheduler (hops
 * between them stay in-process), one connection, one health server and one Lease, `<A>-lock`
 * (docs/operations.md "Serving several module names").
 * An `--also` platform module (src/core/api/platform-modules.ts) publishes only its own components
 * in its TinyModule and runs only those (a node of another component is refused naming where it
 * lives, as local mode does), so the platform offers and runs under its name what the Go module
 * does; any other name publishes and runs the whole set, as `--name` does.
 */
import { sanitizeResourceName } from "../core/api/index.ts";
import { nameMatches, parseFullName } from "../core/api/naming.ts";
import { notInPlatformModule, PLATFORM_MODULES, platformModule, type PlatformModule } from "../core/api/platform-modules.ts";
import { PermanentError, TinyError } from "../core/errors.ts";
import type { NodeScheduler } from "../k8s/controllers/tinynode.ts";

/** The platform's publisher as a sanitized name starts with it (`tinysystems/common-module-v0` → `tinysystems-common-module-v0`). */
const PLATFORM_PUBLISHER = "tinysystems-";

/** One module name this process serves. */
export interface ServedModule {
  /** As given (`--name`, `--also`): the TinyModule's spec and nodes' `status.module.name`. */
  readonly name: string;
  /** `sanitizeResourceName(name)`: TinyModule name, NATS subject and consumer, node-name segment. */
  readonly sanitized: string;
  /** The platform module an `--also` name maps onto, when it is one (`--name` keeps the whole set, as before `--also`). */
  readonly platform: PlatformModule | undefined;
}

/**
 * The served modules, `primary` first.
 * @param from where each `also` name came from, named in errors (default `--also`; the CLI passes
 *   `TINYHOST_ALSO` for the names read from that variable).
 * @throws Error naming the source and value when a name is empty, names a module already served
 *   (after sanitizing: `A` and `a` are one TinyModule), or one a node name could not be told from
 *   (`shop` and `tinysystems/shop`: the publisher prefix is optional in node names, `NameMatches`),
 *   or, for an `--also`, a platform module tinyhost does not bundle (`tinysystems/kubernetes-module-v0`).
 */
export function servedModules(primary: string, also: readonly string[] = [], from: readonly string[] = []): ServedModule[] {
  const out: ServedModule[] = [];
  const sources = ["--name", ...also.map((_, i) => from[i] ?? "--also")];
  const as = (m: ServedModule) => `${sources[out.indexOf(m)]} ${JSON.stringify(m.name)}`;
  for (const [i, name] of [primary, ...also].entries()) {
    const given = `${sources[i]} = ${JSON.stringify(name)}`;
    const sanitized = sanitizeResourceName(name);
    if (sanitized === "") throw new Error(`${given} is not a module name`);
    const twin = out.find((m) => m.sanitized === sanitized);
    if (twin) throw new Error(`${given} names module ${sanitized}, already served as ${as(twin)}`);
    const alike = out.find((m) => nameMatches(sanitized, m.sanitized));
    if (alike) throw new Error(`${given} cannot be told from ${as(alike)} in a node name (a publisher prefix is optional there): serve one of them`);
    const platform = i === 0 ? undefined : platformModule(sanitized);
    if (i > 0 && !platform && sanitized.startsWith(PLATFORM_PUBLISHER))
      throw new Error(
        `${given} is a platform module tinyhost does not bundle (it stands in for ${PLATFORM_MODULES.map((m) => `tinysystems/${m.name}`).join(", ")}): ` +
          "its nodes would all fail as unregistered; run its Go module, or serve a module of your own",
      );
    out.push({ name, sanitized, platform });
  }
  return out;
}

/** The component names `m`'s TinyModule publishes: its platform module's (those registered), else all of `names`. */
export function publishedComponents<T extends { info: { name: string } }>(m: ServedModule, defs: readonly T[]): T[] {
  const platform = m.platform;
  return platform ? defs.filter((d) => platform.components.includes(d.info.name)) : [...defs];
}

/**
 * `scheduler` for the TinyNode controller, refusing a node of a served platform module whose
 * component that Go module does not have (as local mode does, src/local/modules.ts): its status
 * says which module has it; a runner it had under another component is destroyed.
 * @returns `scheduler` itself when no served name is a platform module.
 */
export function platformScoped(served: readonly ServedModule[], scheduler: NodeScheduler & { installed(component: string): unknown }): NodeScheduler {
  if (!served.some((m) => m.platform)) return scheduler;
  return {
    async update(node) {
      const name = node.metadata.name ?? "";
      let segment: string;
      try {
        segment = parseFullName(name).module;
      } catch {
        return scheduler.update(node);
      }
      const platform = served.find((m) => nameMatches(segment, m.name))?.platform;
      const component = node.spec.component;
      if (!platform || platform.components.includes(component)) return scheduler.update(node);
      await scheduler.destroy(name);
      throw new PermanentError(
        new TinyError("COMPONENT_NOT_REGISTERED", notInPlatformModule(platform, component, scheduler.installed(component) !== undefined)),
      );
    },
    destroy: (name) => scheduler.destroy(name),
  };
}
