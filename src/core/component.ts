/**
 * `defineComponent`: the one way to declare a component, and the runtime-facing shapes the registry
 * and the scheduler consume.
 *
 * Contract (runtime-spec §1.1, §1.5): info with a non-empty name; ports that may depend on per-node
 * state; `handle(ctx, output, port, data)` for business ports; optional capability hooks called in
 * the order onIdentity → onClient → onNats → [new node: onState → onEmitter] → onReconcile →
 * onSettings; onControl on a `_control` message; onDestroy on node deletion.
 */
import type { Static, TSchema } from "typebox";
import type { ComponentContext, Emitter, OutputFn } from "./context.ts";
import type { NodeIdentity, TinyNode } from "./node.ts";
import type { AnyPort, PortSpec } from "./ports.ts";
import type { HandleReturn, Result } from "./result.ts";
import type { State } from "./state.ts";
import type { ModuleClient } from "./client.ts";
import { componentNameProblem } from "./component-name.ts";
import { resolveAgentTool, type AgentToolInfo, type AgentToolSpec } from "./agent-tool.ts";
import { TinyError } from "./errors.ts";
import { frozenRequirements, requirementsProblem, type Requirements } from "./requirements.ts";

/** Component metadata (runtime-spec §1.1 `ComponentInfo`). `name` is what `TinyNode.spec.component` names. */
export interface ComponentInfo {
  /**
   * Unique component name within the module, e.g. `"router"`, `"http_server"`: lowercase letters and
   * digits in words joined by single `_`, at most 48 characters (see component-name.ts for why).
   */
  name: string;
  /** Short human title, e.g. `"Router"`. */
  description: string;
  /** Longer help text. */
  info: string;
  /** Free tags, e.g. `["SDK"]`. */
  tags?: string[];
}

type NotSystem<N extends string> = N extends `_${string}` ? never : N;

/**
 * The argument lists `handle` receives: one `[ctx, output, port, data]` tuple per non-system target
 * port, `data` typed by that port's schema — so `if (port === "in")` narrows `data` (TS dependent
 * parameters need the whole parameter list to be one union of tuples).
 */
export type HandleArgs<S, P extends readonly AnyPort[]> = P[number] extends infer Pt
  ? Pt extends PortSpec<infer N, infer T, false>
    ? NotSystem<N> extends never
      ? never
      : [ctx: ComponentContext<S>, output: Output<P>, port: N, data: Static<T>]
    : never
  : never;

type PortData<P extends readonly AnyPort[], Name extends string, Src extends boolean> = P[number] extends infer Pt
  ? Pt extends PortSpec<Name, infer T, Src>
    ? Static<T>
    : never
  : never;

/** The `_settings` port's data type (or `unknown` when there is none). */
export type SettingsOf<P extends readonly AnyPort[]> = [PortData<P, "_settings", false>] extends [never] ? unknown : PortData<P, "_settings", false>;

/** The data type of the target `_control` port (or `unknown`). */
export type ControlOf<P extends readonly AnyPort[]> = [PortData<P, "_control", false>] extends [never] ? unknown : PortData<P, "_control", false>;

/** Typed output: known source ports take their schema's type; other addresses take `unknown`. */
export type Output<P extends readonly AnyPort[]> = <N extends string>(
  port: N,
  data?: [PortData<P, N, true>] extends [never] ? unknown : PortData<P, N, true>,
) => Promise<Result>;

/** Lifecycle result: hooks may be sync or async; a throw/rejection fails the reconcile. */
export type HookReturn = void | Promise<void>;

/**
 * What an author passes to {@link defineComponent}. `S` = per-node instance state, `P` = the ports
 * tuple returned by `ports(self)`.
 */
export interface ComponentSpec<S, P extends readonly AnyPort[]> {
  /** Component metadata. */
  info: ComponentInfo;
  /** Creates the per-node instance state (one per TinyNode per pod). */
  state?: () => S;
  /** Declares the ports; called again after settings change or a `_control` emit. */
  ports: (self: S) => P;
  /** Handles data arriving on a business target port. Return `output(...)`'s result to pass replies up. */
  handle: (...args: HandleArgs<S, P>) => HandleReturn;
  /** Every reconcile, first (runtime-spec §1.5 IdentityAware). */
  onIdentity?: (ctx: ComponentContext<S>, identity: NodeIdentity) => HookReturn;
  /** Every reconcile: the platform client (runtime-spec §1.5 ClientAware): exposePort/disclosePort, namespace. */
  onClient?: (ctx: ComponentContext<S>, client: ModuleClient) => HookReturn;
  /** Every reconcile: the JetStream handle, or `null` without NATS (runtime-spec §1.5 NATSAware). */
  onNats?: (ctx: ComponentContext<S>, jetstream: unknown) => HookReturn;
  /** Once per new node: the node-scope {@link State} (runtime-spec §1.5 Stateful). */
  onState?: (ctx: ComponentContext<S>, state: State) => HookReturn;
  /** Once per new node: a long-lived emitter for background work (runtime-spec §1.5 EmitterAware). */
  onEmitter?: (ctx: ComponentContext<S>, emit: Emitter) => HookReturn;
  /** Every reconcile with the node; a throw rolls the update back (runtime-spec §1.5, §3.3). */
  onReconcile?: (ctx: ComponentContext<S>, node: TinyNode) => HookReturn;
  /** New settings (deduplicated by deep equality, runtime-spec §2.2 step 6). */
  onSettings?: (ctx: ComponentContext<S>, settings: SettingsOf<P>) => HookReturn;
  /** A message on `_control` (dashboard). `output` is the same as handle's (runtime-spec §1.5). */
  onControl?: (ctx: ComponentContext<S>, control: ControlOf<P>, output: Output<P>) => HandleReturn;
  /** Node deleted (not pod shutdown): last known `status.metadata` (runtime-spec §1.1 Destroyer). */
  onDestroy?: (ctx: ComponentContext<S>, metadata: Record<string, string>) => HookReturn;
  /**
   * Serve this component as an agent (MCP) tool (runtime-spec §1.5 AgentTool, §3.4): `true` for
   * the defaults (input `in`, output `out`), or which ports and what description. An RPC call runs
   * a fresh instance — `state()` only, no hooks, no settings — so only stateless components opt in.
   */
  agentTool?: true | AgentToolSpec;
  /**
   * The component blocks on a downstream reply (runtime-spec §1.5 SyncRPC, Go module/sync_rpc.go:
   * e.g. http_server holding a live connection). `tinyhost components` tags it `sync_rpc`, which the
   * platform reads to keep the subgraph around it on classic request/reply delivery.
   */
  syncRpc?: true;
  /**
   * What the component needs from the cluster beyond the runtime's own RBAC: extra rules
   * (cluster-wide or namespaced), the Secrets its settings' placeholders may name, storage (Go
   * `registry.SetRequirements`). Read by `tools rbac-values` and `tools rbac-check`.
   */
  requirements?: Requirements;
  /**
   * Fields that hold text in the component's own template language (Go `text/template` for
   * go_template), by port: their `{{…}}` are the component's, so the runner passes them through as
   * written instead of evaluating them as edge expressions. Paths as the expression errors name
   * fields, with `[]` for any index: `{ _settings: ["templates[].content"] }`.
   */
  templateText?: Readonly<Record<string, readonly string[]>>;
}

/** Capability hook names in the order the scheduler calls them on reconcile (runtime-spec §1.5). */
export const HOOK_ORDER = ["onIdentity", "onClient", "onNats", "onState", "onEmitter", "onReconcile", "onSettings"] as const;

/**
 * One per-node instance of a component, types erased: what the runner drives. Produced by
 * {@link ComponentDefinition.instance}.
 */
export interface ComponentInstance {
  /** The definition this instance came from. */
  readonly definition: ComponentDefinition;
  /** The per-node instance state (`ctx.self`). */
  readonly self: unknown;
  /** Current ports (author's `ports(self)`). */
  ports(): readonly AnyPort[];
  /** Business handler. */
  handle(ctx: ComponentContext<unknown>, output: OutputFn, port: string, data: unknown): HandleReturn;
  /** Optional capability hooks, unbound from author types. */
  readonly hooks: {
    readonly [K in keyof ErasedHooks]?: ErasedHooks[K];
  };
}

/** Capability hook signatures with author types erased (used by the runner). */
export interface ErasedHooks {
  onIdentity(ctx: ComponentContext<unknown>, identity: NodeIdentity): HookReturn;
  onClient(ctx: ComponentContext<unknown>, client: ModuleClient): HookReturn;
  onNats(ctx: ComponentContext<unknown>, jetstream: unknown): HookReturn;
  onState(ctx: ComponentContext<unknown>, state: State): HookReturn;
  onEmitter(ctx: ComponentContext<unknown>, emit: Emitter): HookReturn;
  onReconcile(ctx: ComponentContext<unknown>, node: TinyNode): HookReturn;
  onSettings(ctx: ComponentContext<unknown>, settings: unknown): HookReturn;
  onControl(ctx: ComponentContext<unknown>, control: unknown, output: OutputFn): HandleReturn;
  onDestroy(ctx: ComponentContext<unknown>, metadata: Record<string, string>): HookReturn;
}

/** Brand set by {@link defineComponent}; checked by {@link isComponentDefinition}. */
export const COMPONENT_BRAND: unique symbol = Symbol.for("tinyhost.component");

/**
 * A component definition: the default export of a `components/*.ts` file.
 * - `info` — metadata (`info.name` is the registry key);
 * - `instance()` — a fresh per-node instance (runtime-spec §1.1 `Instance()`);
 * - `ports()` — the ports of a fresh instance (default settings), for listings such as TinyModule
 *   status and `tools components-info`.
 * `P` is a phantom carrying the author's port types for the test harness.
 */
export interface ComponentDefinition<P extends readonly AnyPort[] = readonly AnyPort[]> {
  readonly [COMPONENT_BRAND]: true;
  readonly info: Readonly<ComponentInfo>;
  /** Set when the component is an agent tool (runtime-spec §3.4), with defaults applied. */
  readonly agentTool?: AgentToolInfo;
  /** True when the component declared `syncRpc` (runtime-spec §1.5 SyncRPC). */
  readonly syncRpc?: true;
  /** What the component declared it needs from the cluster (./requirements.ts), frozen. */
  readonly requirements?: Readonly<Requirements>;
  /** Template-text fields by port, as declared ({@link ComponentSpec.templateText}). */
  readonly templateText?: Readonly<Record<string, readonly string[]>>;
  instance(): ComponentInstance;
  ports(): readonly AnyPort[];
  /** Phantom (always undefined): the author's port tuple type. */
  readonly __ports?: P;
}

/** Error thrown by {@link defineComponent} for a malformed spec. code `"INVALID_COMPONENT"`. */
export class InvalidComponentError extends TinyError<"INVALID_COMPONENT"> {
  /** @param message - what is wrong. @param options - `cause`, the underlying error if any. */
  constructor(message: string, options?: { cause?: unknown }) {
    super("INVALID_COMPONENT", message, options);
  }
}

/** The keys of {@link ComponentSpec}; defineComponent refuses any other. */
const SPEC_KEYS: ReadonlySet<string> = new Set([
  "info",
  "state",
  "ports",
  "handle",
  ...HOOK_ORDER,
  "onControl",
  "onDestroy",
  "agentTool",
  "syncRpc",
  "requirements",
  "templateText",
]);

/**
 * Declares a component. Throws {@link InvalidComponentError} when `info.name` is empty or breaks the
 * component name rule (`COMPONENT_NAME_RULE` in component-name.ts: it must survive node names),
 * `handle`/`ports` is not a function (runtime-spec §1.1: Install rejects an empty name),
 * `agentTool` is malformed (agent-tool.ts), or `spec` has a key ComponentSpec does not know.
 *
 * @example
 * export default defineComponent({
 *   info: { name: "double", description: "Double", info: "n × 2" },
 *   ports: () => [target("in", Type.Object({ n: Type.Number() })), source("out", Type.Object({ n: Type.Number() }))],
 *   handle: (ctx, output, port, data) => output("out", { n: data.n * 2 }),
 * });
 */
export function defineComponent<S = Record<string, never>, const P extends readonly AnyPort[] = readonly AnyPort[]>(
  spec: ComponentSpec<S, P>,
): ComponentDefinition<P> {
  if (!spec || typeof spec !== "object") throw new InvalidComponentError("defineComponent: spec must be an object");
  const name = spec.info?.name;
  if (typeof name !== "string" || name.trim() === "") {
    throw new InvalidComponentError(`defineComponent: info.name must be a non-empty string, got ${JSON.stringify(name)}`);
  }
  const problem = componentNameProblem(name);
  if (problem !== undefined) throw new InvalidComponentError(`defineComponent: info.name ${problem}`);
  // A misspelt key (`requirments`) would drop what it declares without a word; TypeScript says so
  // only when the file is typechecked, and component files are loaded without that.
  const unknown = Object.keys(spec).find((k) => !SPEC_KEYS.has(k));
  if (unknown !== undefined) throw new InvalidComponentError(`component ${name}: unknown key ${JSON.stringify(unknown)} (known: ${[...SPEC_KEYS].join(", ")})`);
  if (typeof spec.handle !== "function") throw new InvalidComponentError(`component ${name}: handle must be a function`);
  if (typeof spec.ports !== "function") throw new InvalidComponentError(`component ${name}: ports must be a function returning the port list`);
  const agentTool = spec.agentTool === undefined ? undefined : resolveAgentTool(spec.agentTool);
  if (typeof agentTool === "string") throw new InvalidComponentError(`component ${name}: ${agentTool}`);
  if (spec.syncRpc !== undefined && spec.syncRpc !== true)
    throw new InvalidComponentError(`component ${name}: syncRpc must be true or absent, got ${JSON.stringify(spec.syncRpc)}`);
  const requirementsIssue = spec.requirements === undefined ? undefined : requirementsProblem(spec.requirements);
  if (requirementsIssue !== undefined) throw new InvalidComponentError(`component ${name}: ${requirementsIssue}`);
  const templateText = spec.templateText === undefined ? undefined : checkTemplateText(name, spec.templateText);
  const info: ComponentInfo = Object.freeze({ ...spec.info, tags: spec.info.tags ? [...spec.info.tags] : [] });
  const erased = spec as unknown as ComponentSpec<unknown, readonly AnyPort[]> & Partial<ErasedHooks>;
  const hooks: Partial<ErasedHooks> = {};
  for (const k of [...HOOK_ORDER, "onControl", "onDestroy"] as const) {
    const fn = erased[k];
    if (typeof fn === "function") (hooks as Record<string, unknown>)[k] = fn;
  }
  Object.freeze(hooks);
  const handle = erased.handle as unknown as ComponentInstance["handle"];
  const def: ComponentDefinition<P> = {
    [COMPONENT_BRAND]: true,
    info,
    ...(agentTool ? { agentTool } : {}),
    ...(spec.syncRpc === true ? { syncRpc: true as const } : {}),
    ...(spec.requirements !== undefined ? { requirements: frozenRequirements(spec.requirements) } : {}),
    ...(templateText ? { templateText } : {}),
    instance(): ComponentInstance {
      const self: unknown = spec.state ? spec.state() : {};
      return {
        definition: def as ComponentDefinition,
        self,
        ports: () => erased.ports(self),
        handle,
        hooks,
      };
    },
    ports(): readonly AnyPort[] {
      return def.instance().ports();
    },
  };
  return Object.freeze(def);
}

/**
 * True when `x` is a definition made by {@link defineComponent}: carries the brand, a non-empty
 * `info.name`, and `instance`/`ports` functions. Used by the registry's discovery of `components/*.ts`.
 */
export function isComponentDefinition(x: unknown): x is ComponentDefinition {
  if (typeof x !== "object" || x === null) return false;
  const d = x as Partial<ComponentDefinition> & { [COMPONENT_BRAND]?: unknown };
  return (
    d[COMPONENT_BRAND] === true && typeof d.info?.name === "string" && d.info.name !== "" && typeof d.instance === "function" && typeof d.ports === "function"
  );
}

/**
 * A frozen copy of `templateText` (port → field paths).
 * @throws InvalidComponentError naming the port or path when it is not an object of string lists.
 */
function checkTemplateText(name: string, t: unknown): Readonly<Record<string, readonly string[]>> {
  if (typeof t !== "object" || t === null || Array.isArray(t))
    throw new InvalidComponentError(`component ${name}: templateText must map port names to field paths, got ${JSON.stringify(t)}`);
  const out: Record<string, readonly string[]> = {};
  for (const [port, paths] of Object.entries(t)) {
    if (!Array.isArray(paths) || paths.some((p) => typeof p !== "string" || p === ""))
      throw new InvalidComponentError(
        `component ${name}: templateText.${port} must be a list of field paths like "templates[].content", got ${JSON.stringify(paths)}`,
      );
    out[port] = Object.freeze([...(paths as string[])]);
  }
  return Object.freeze(out);
}
