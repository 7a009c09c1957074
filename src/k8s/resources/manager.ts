/**
 * The resource manager: one object per module process that components receive in `onClient`
 * (runtime-spec §1.5, §7) and the runtime uses for TinyModule/TinyNode writes (Go
 * `ManagerInterface`: CreateModule, PatchNode, CreateNode, UpdateNode, DeleteNode, GetNode).
 */
import type { ModuleClient } from "../../core/client.ts";
import type { KubeClient } from "../client/index.ts";
import { createResourceContext, type ResourceContextOptions } from "./context.ts";
import { disclosePort } from "./disclose.ts";
import { exposePort, type ExposePortRequest } from "./expose.ts";
import { flowHelpers, type FlowHelpers } from "./flows.ts";
import { bindKinds } from "./kinds.ts";
import { createModule, type ModuleIdentity } from "./modules.ts";
import type { TinyNodeApi } from "./node-api.ts";
import { tinyNodeApi } from "./nodes.ts";
import { pageHelpers, type PageHelpers } from "./pages.ts";
import { projectHelpers, type ProjectHelpers } from "./projects.ts";
import { scenarioHelpers, type ScenarioHelpers } from "./scenarios.ts";

/**
 * What a component's `onClient` hook receives: port exposure on the release Service/Ingress,
 * typed custom-resource helpers, and the raw client for anything else.
 */
export interface ClusterModuleClient extends ModuleClient {
  /** Always `"cluster"`: this client writes to the release's Service and Ingress. */
  readonly mode: "cluster";
  /**
   * Routes hostnames to a port through the release Service and Ingress (runtime-spec §7.1),
   * recording what it adds; another writer's entry in the way is an `EXPOSE_CONFLICT` error.
   * @returns the hostnames now routed (given ones, then the auto one), normalized.
   * @throws see `exposePort` in expose.ts (validation errors and conflicts change nothing).
   */
  exposePort(request: ExposePortRequest): Promise<string[]>;
  /**
   * Removes what exposePort recorded as its own for the port, nothing else (runtime-spec §7.2).
   * @throws see `disclosePort` in disclose.ts.
   */
  disclosePort(port: number): Promise<void>;
  /** Namespace the module runs in; the default of every helper. */
  readonly namespace: string;
  /** The raw Kubernetes REST client. */
  readonly kube: KubeClient;
  /** TinyNode calls. */
  readonly nodes: TinyNodeApi;
  /** TinyFlow helpers. */
  readonly flows: FlowHelpers;
  /** TinyProject helpers. */
  readonly projects: ProjectHelpers;
  /** TinyWidgetPage helpers. */
  readonly pages: PageHelpers;
  /** TinyScenario helpers. */
  readonly scenarios: ScenarioHelpers;
  /**
   * Go `CreateModule`: TinyModule `{name: sanitized, spec.image: "<name>:<version>"}` in the
   * manager namespace (with `annotations` when given: ours, Go has none); AlreadyExists is ignored.
   * @returns true when created.
   */
  createModule(module: ModuleIdentity, annotations?: Record<string, string>): Promise<boolean>;
}

/** Options of {@link createResourceManager}: the client, namespace, pod name (HOSTNAME) and expose-lock TTL. */
export type ResourceManagerOptions = ResourceContextOptions;

/**
 * Builds the resource manager. Sends no request until a method is called; the release name is
 * read from the pod on the first exposePort/disclosePort and cached.
 * @param options - `kube` (required), `namespace` (default the client's), `podName` (default
 *   `env.HOSTNAME`), `env`, `log`.
 */
export function createResourceManager(options: ResourceManagerOptions): ClusterModuleClient {
  const ctx = createResourceContext(options);
  const kinds = bindKinds(ctx.kube);
  return {
    mode: "cluster",
    exposePort: (request) => exposePort(ctx, request),
    disclosePort: (port) => disclosePort(ctx, port),
    namespace: ctx.namespace,
    kube: ctx.kube,
    nodes: tinyNodeApi(ctx.kube, ctx.namespace, kinds),
    flows: flowHelpers(kinds, ctx.namespace),
    projects: projectHelpers(kinds, ctx.namespace),
    pages: pageHelpers(kinds, ctx.namespace),
    scenarios: scenarioHelpers(kinds, ctx.namespace),
    createModule: (module, annotations) => createModule(kinds, ctx.namespace, module, annotations),
  };
}
