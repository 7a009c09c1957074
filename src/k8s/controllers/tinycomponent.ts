/**
 * The TinyComponent reconciler (runtime-spec §5.3): a TinyComponent whose `spec.runtime` this
 * module serves (`js`, `ts`; empty = `js`) becomes a component of this module.
 *
 * 1. Gone → uninstall what it installed. Deleting → uninstall, remove our finalizer
 *    `io.tinysystems/component-finalizer`.
 * 2. A runtime we do not serve → nothing: no finalizer, no status (Go's every module writes
 *    `installed=false` here, and two modules then patch the status back and forth, §16 item 22).
 * 3. Add the finalizer; build the definition (script compiled and loaded once); install it through
 *    the component catalog, which re-reconciles the component's nodes, so an edit reaches running
 *    nodes (Go keeps the old instance until a runner is recreated, §16 item 22). A build is redone
 *    only when the generation changes.
 * 4. The leader writes `status {installed, reason, observedGeneration, module}` — unless another
 *    module already reported this generation (installed, or the same failure), so several serving
 *    modules do not overwrite each other. Requeue: leader 5 min, follower 1 min (§13.1).
 */
import {
  COMPONENT_FINALIZER,
  DEFAULT_COMPONENT_RUNTIME,
  TINY_COMPONENT_RESOURCE,
  type TinyComponentSpec,
  type TinyComponentStatus,
} from "../../core/api/index.ts";
import { defineResource, isNotFound, retryOnConflict, type KubeClient, type KubeObject, type ResourceDescriptor } from "../client/index.ts";
import type { ReconcileResult, Reconciler } from "../runtime/controller.ts";
import { splitKey } from "../runtime/source.ts";
import type { ComponentDefinition } from "../../core/component.ts";
import type { ComponentCatalog } from "../../runtime/registry/catalog.ts";
import { defineScriptComponent, SCRIPT_RUNTIMES } from "../../runtime/script/defined.ts";
import type { ScriptLanguage } from "../../runtime/script/compile.ts";
import { messageOf } from "../../core/errors.ts";

/** A TinyComponent as the controller sees it (runtime-spec §8). */
export interface WatchedComponent extends KubeObject {
  spec: TinyComponentSpec;
  status?: TinyComponentStatus;
}

/** `operator.tinysystems.io/v1alpha1` tinycomponents, typed for the REST client. */
export const tinyComponents: ResourceDescriptor<WatchedComponent> = defineResource<WatchedComponent>(TINY_COMPONENT_RESOURCE);

/** Leader requeue, ms (runtime-spec §5.3, §13.1). */
export const COMPONENT_LEADER_REQUEUE_MS = 5 * 60_000;
/** Follower requeue, ms (runtime-spec §5.3, §13.1). */
export const COMPONENT_FOLLOWER_REQUEUE_MS = 60_000;

/** TinyComponent calls in one namespace. */
export interface TinyComponentApi {
  /** Fresh GET. @throws KubeApiError (`isNotFound`). */
  get(name: string): Promise<WatchedComponent>;
  /** Sets `metadata.finalizers`, guarded by `resourceVersion`. @throws KubeApiError (`isConflict`, `isNotFound`). */
  setFinalizers(name: string, resourceVersion: string, finalizers: string[]): Promise<WatchedComponent>;
  /** Merge-patches `status`, guarded by `resourceVersion`. @throws KubeApiError (`isConflict`, `isNotFound`). */
  patchStatus(name: string, resourceVersion: string, status: TinyComponentStatus): Promise<WatchedComponent>;
}

/** {@link TinyComponentApi} through the REST client, in `namespace`. */
export function kubeComponentApi(kube: KubeClient, namespace: string): TinyComponentApi {
  return {
    get: (name) => kube.get(tinyComponents, name, namespace),
    setFinalizers: (name, resourceVersion, finalizers) => kube.mergePatch(tinyComponents, name, { metadata: { resourceVersion, finalizers } }, { namespace }),
    patchStatus: (name, resourceVersion, status) =>
      kube.mergePatch(tinyComponents, name, { metadata: { resourceVersion }, status }, { namespace, subresource: "status" }),
  };
}

/** Parameters of {@link tinyComponentReconciler}. */
export interface TinyComponentReconcilerOptions {
  /** This module's name as `status.module` shows it (unsanitized `--name`). */
  module: string;
  /** Where definitions are installed. */
  catalog: ComponentCatalog;
  /** Reads and writes in the module's namespace. */
  api: TinyComponentApi;
  /** Live leader flag (runtime-spec §6). */
  isLeader: () => boolean;
  /** Builds a component from a spec; default the script runtime's {@link defineScriptComponent}. */
  build?: (spec: TinyComponentSpec, runtime: ScriptLanguage) => Promise<ComponentDefinition>;
}

/** Counters of the reconciler. */
export interface TinyComponentReconcilerStats {
  installs: number;
  failures: number;
  uninstalls: number;
  statusWrites: number;
  statusSkips: number;
}

/** The reconcile function plus its counters. */
export interface TinyComponentReconciler {
  reconcile: Reconciler<WatchedComponent>;
  readonly stats: TinyComponentReconcilerStats;
}

interface Installed {
  generation: number;
  component: string;
  installed: boolean;
  reason: string;
}

function defaultBuild(spec: TinyComponentSpec, runtime: ScriptLanguage): Promise<ComponentDefinition> {
  return defineScriptComponent({
    name: spec.component,
    description: spec.description ?? "",
    info: spec.info ?? "",
    runtime,
    script: spec.script,
    inputSchema: spec.input,
    outputSchema: spec.output,
    enableErrorPort: spec.enableErrorPort === true,
  });
}

/** Builds the TinyComponent reconciler. */
export function tinyComponentReconciler(opts: TinyComponentReconcilerOptions): TinyComponentReconciler {
  const { catalog, api } = opts;
  const build = opts.build ?? defaultBuild;
  const stats: TinyComponentReconcilerStats = { installs: 0, failures: 0, uninstalls: 0, statusWrites: 0, statusSkips: 0 };
  const done = new Map<string, Installed>();

  const uninstall = async (origin: string) => {
    done.delete(origin);
    for (const name of catalog.namesOf(origin)) if (await catalog.remove(name, origin)) stats.uninstalls++;
  };

  const install = async (origin: string, object: WatchedComponent, runtime: ScriptLanguage): Promise<Installed> => {
    const generation = object.metadata.generation ?? 0;
    const component = object.spec.component ?? "";
    const previous = done.get(origin);
    if (previous && previous.generation === generation && previous.component === component) return previous;
    for (const name of catalog.namesOf(origin)) if (name !== component) await catalog.remove(name, origin);
    let result: Installed;
    if (component === "") result = { generation, component, installed: false, reason: "spec.component is empty" };
    else {
      const owner = catalog.get(component);
      if (owner && owner.origin !== origin) {
        result = {
          generation,
          component,
          installed: false,
          reason: owner.origin.startsWith("tinycomponent:")
            ? `"${component}" is already defined by ${owner.origin.slice("tinycomponent:".length)}`
            : `"${component}" is already a compiled component in this module`,
        };
      } else {
        try {
          const def = await build(object.spec, runtime);
          const refused = catalog.put(def, origin);
          result = refused
            ? { generation, component, installed: false, reason: `install: ${refused}` }
            : { generation, component, installed: true, reason: "" };
        } catch (err) {
          // A broken edit leaves the previous version serving (Go keeps it too); the status says why.
          result = { generation, component, installed: false, reason: messageOf(err) };
        }
      }
    }
    if (result.installed) stats.installs++;
    else stats.failures++;
    done.set(origin, result);
    return result;
  };

  const setFinalizers = async (object: WatchedComponent, name: string, want: boolean): Promise<WatchedComponent | undefined> => {
    try {
      const out = await retryOnConflict({
        what: `TinyComponent ${name} finalizers`,
        current: object,
        read: () => api.get(name),
        write: (o) => {
          const finalizers = o.metadata.finalizers ?? [];
          const has = finalizers.includes(COMPONENT_FINALIZER);
          if (has === want || (want && o.metadata.deletionTimestamp)) return undefined;
          return api.setFinalizers(
            name,
            o.metadata.resourceVersion ?? "",
            want ? [...finalizers, COMPONENT_FINALIZER] : finalizers.filter((f) => f !== COMPONENT_FINALIZER),
          );
        },
      });
      return out.object;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  };

  const writeStatus = async (object: WatchedComponent, name: string, r: Installed): Promise<void> => {
    const desired: TinyComponentStatus = { installed: r.installed, reason: r.reason, observedGeneration: r.generation, module: r.installed ? opts.module : "" };
    const out = await retryOnConflict({
      what: `TinyComponent ${name} status`,
      current: object,
      read: () => api.get(name),
      write: (o) => {
        const s = o.status ?? {};
        const same =
          s.installed === desired.installed &&
          (s.reason ?? "") === desired.reason &&
          s.observedGeneration === desired.observedGeneration &&
          (s.module ?? "") === desired.module;
        if (same) return undefined;
        const reportedThisGeneration = s.observedGeneration === r.generation && s.module !== opts.module;
        if (reportedThisGeneration && (s.installed === true || !desired.installed)) return undefined; // another serving module answered for this generation
        return api.patchStatus(name, o.metadata.resourceVersion ?? "", desired);
      },
    });
    if (out.written) stats.statusWrites++;
    else stats.statusSkips++;
  };

  const reconcile: Reconciler<WatchedComponent> = async (key, object): Promise<ReconcileResult | void> => {
    const { namespace, name } = splitKey(key);
    const origin = `tinycomponent:${namespace}/${name}`;
    if (!object) return void (await uninstall(origin));
    const runtime = (object.spec?.runtime || DEFAULT_COMPONENT_RUNTIME) as ScriptLanguage;
    const serves = SCRIPT_RUNTIMES.includes(runtime);
    if (object.metadata.deletionTimestamp) {
      if (!serves) return;
      await uninstall(origin);
      await setFinalizers(object, name, false);
      return;
    }
    if (!serves) {
      await uninstall(origin); // edited to a runtime we do not serve
      return;
    }
    const current = await setFinalizers(object, name, true);
    if (!current) return void (await uninstall(origin));
    const result = await install(origin, current, runtime);
    if (!opts.isLeader()) return { requeueAfterMs: COMPONENT_FOLLOWER_REQUEUE_MS };
    try {
      await writeStatus(current, name, result);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    return { requeueAfterMs: COMPONENT_LEADER_REQUEUE_MS };
  };

  return { reconcile, stats };
}
