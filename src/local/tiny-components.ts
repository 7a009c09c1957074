/**
 * TinyComponents in local mode, as a cluster runs them: each declared TinyComponent goes through
 * the cluster's own reconciler (src/k8s/controllers/tinycomponent.ts — finalizer, build of the
 * script in the sandbox, install through a component catalog, status) over an in-memory
 * TinyComponent API, so a script that installs here installs in the cluster, and a broken edit
 * leaves the previous version serving with the reason reported. A changed spec is a new
 * generation (rebuilt, and the nodes of its component recreated); a removed one is uninstalled. A
 * name that is already a bundled or file component is refused, as the cluster's catalog refuses it.
 */
import type { TinyComponentStatus } from "../core/api/v1alpha1.ts";
import { KubeApiError } from "../k8s/client/index.ts";
import { tinyComponentReconciler, type TinyComponentApi, type TinyComponentReconciler, type WatchedComponent } from "../k8s/controllers/tinycomponent.ts";
import { ComponentCatalog } from "../runtime/registry/catalog.ts";
import type { ComponentDefinition } from "../core/component.ts";
import type { NamedManifest, TinyComponentManifest } from "./manifests.ts";

/** Origin under which bundled and file components are entered in the catalog (only to be refused). */
const COMPILED = "compiled";

/** What {@link LocalTinyComponents} uses of local mode. */
export interface LocalTinyComponentsHost {
  /** Namespace of manifests that name none. */
  namespace: string;
  /** Module name for `status.module`. */
  module: string;
  /** The installed component named `name` (bundled, file or TinyComponent). */
  installed(name: string): ComponentDefinition | undefined;
  install(definition: ComponentDefinition): void;
  uninstall(name: string): Promise<string[]>;
  /** Component `name` changed (installed, replaced, removed): reconcile its nodes again. */
  changed(name: string): void;
  /** A line for the terminal (printed once per text by the report). */
  line(text: string): void;
}

/** See the module comment. */
export class LocalTinyComponents {
  readonly #store = new Map<string, WatchedComponent>();
  readonly #catalog: ComponentCatalog;
  readonly #reconciler: TinyComponentReconciler;
  #rv = 0;
  /** What was last said per TinyComponent (said again only when it changes). */
  readonly #said = new Map<string, string>();
  /** Where each was declared, for the lines. */
  #where = new Map<string, string>();

  /** @param h what is used of local mode (see {@link LocalTinyComponentsHost}). */
  constructor(readonly h: LocalTinyComponentsHost) {
    this.#catalog = new ComponentCatalog({ install: (d) => h.install(d), uninstall: (n) => h.uninstall(n) });
    this.#catalog.onChange((names) => {
      for (const n of names) if (this.#catalog.get(n)?.origin !== COMPILED) h.changed(n);
    });
    this.#reconciler = tinyComponentReconciler({ module: h.module, catalog: this.#catalog, api: this.#api(), isLeader: () => true });
  }

  /** Names of the TinyComponents declared now. */
  names(): string[] {
    return [...this.#store.keys()].sort();
  }

  /** The status of TinyComponent `name` (installed, reason, observedGeneration, module), if declared. */
  status(name: string): TinyComponentStatus | undefined {
    return this.#store.get(name)?.status;
  }

  /**
   * Makes the declared TinyComponents those of `declared`: new and changed ones are reconciled
   * (built and installed), removed ones uninstalled; resolves when every reconcile is done.
   */
  apply(declared: ReadonlyMap<string, NamedManifest<TinyComponentManifest>>): Promise<void> {
    // One apply at a time: two quick saves must not build the same generation twice.
    const run = this.#queue.then(() => this.#apply(declared));
    this.#queue = run.catch(() => {});
    return run;
  }

  #queue: Promise<void> = Promise.resolve();

  async #apply(declared: ReadonlyMap<string, NamedManifest<TinyComponentManifest>>): Promise<void> {
    this.#where = new Map([...declared].map(([n, c]) => [n, `${c.file}:${c.line}`]));
    const work: string[] = [];
    for (const [name, c] of declared) {
      const now = this.#store.get(name);
      if (now && JSON.stringify(now.spec) === JSON.stringify(c.object.spec)) continue;
      this.#store.set(name, {
        apiVersion: c.object.apiVersion,
        kind: c.object.kind,
        metadata: {
          ...(c.object.metadata as object),
          name,
          namespace: this.h.namespace,
          generation: (now?.metadata.generation ?? 0) + 1,
          resourceVersion: String(++this.#rv),
          finalizers: now?.metadata.finalizers ?? [],
        },
        spec: c.object.spec,
        ...(now?.status ? { status: now.status } : {}),
      } as WatchedComponent);
      work.push(name);
    }
    for (const name of [...this.#store.keys()]) {
      if (declared.has(name)) continue;
      this.#store.delete(name);
      this.#said.delete(name);
      await this.#reconcile(name, undefined);
      this.h.line(`TinyComponent ${name} removed: its component is uninstalled`);
    }
    for (const name of work) await this.#reconcile(name, this.#store.get(name));
  }

  async #reconcile(name: string, object: WatchedComponent | undefined): Promise<void> {
    const component = object?.spec.component;
    // A bundled or file component of that name: entered so the reconciler refuses it, as a cluster's catalog does.
    const compiled = component ? this.h.installed(component) : undefined;
    if (component && compiled && !this.#catalog.get(component)) this.#catalog.put(compiled, COMPILED);
    try {
      await this.#reconciler.reconcile(`${this.h.namespace}/${name}`, object, { signal: new AbortController().signal } as never);
    } catch (err) {
      this.#say(name, `error: TinyComponent ${name}: ${(err as Error).message}`);
      return;
    }
    const s = this.#store.get(name)?.status;
    if (!object || !s) return;
    const where = this.#where.get(name) ?? name;
    this.#say(
      name,
      s.installed
        ? `TinyComponent ${name}: component ${object.spec.component} installed (${object.spec.runtime || "js"})`
        : `error: ${where}: TinyComponent ${name}: not installed: ${s.reason}`,
    );
  }

  #say(name: string, text: string): void {
    if (this.#said.get(name) === text) return;
    this.#said.set(name, text);
    this.h.line(text);
  }

  /** The in-memory TinyComponent API the reconciler writes finalizers and status through. */
  #api(): TinyComponentApi {
    const apiError = (verb: string, name: string, status: 404 | 409, message: string) =>
      new KubeApiError({
        verb,
        path: `local://tinycomponents/${name}`,
        status,
        body: { kind: "Status", status: "Failure", code: status, reason: status === 404 ? "NotFound" : "Conflict", message },
      });
    const get = (name: string): WatchedComponent => {
      const o = this.#store.get(name);
      if (!o) throw apiError("GET", name, 404, `tinycomponents "${name}" not found`);
      return o;
    };
    const write = (name: string, rv: string, change: (o: WatchedComponent) => WatchedComponent): WatchedComponent => {
      const o = get(name);
      if (o.metadata.resourceVersion !== rv)
        throw apiError("PATCH", name, 409, "the object has been modified; please apply your changes to the latest version and try again");
      const next = change(o);
      next.metadata = { ...next.metadata, resourceVersion: String(++this.#rv) };
      this.#store.set(name, next);
      return next;
    };
    return {
      get: async (name) => get(name),
      setFinalizers: async (name, rv, finalizers) => write(name, rv, (o) => ({ ...o, metadata: { ...o.metadata, finalizers } })),
      patchStatus: async (name, rv, status) => write(name, rv, (o) => ({ ...o, status: { ...o.status, ...status } })),
    };
  }
}
