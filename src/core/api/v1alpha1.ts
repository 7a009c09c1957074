/**
 * TypeScript shapes of the seven operator.tinysystems.io/v1alpha1 CRDs, as they travel in JSON.
 *
 * They mirror the Go SDK's api/v1alpha1/*_types.go and our crds/*.yaml (runtime-spec §8).
 * Every Go `[]byte` field is a {@link Base64} string here: base64 (standard alphabet, padded) of
 * JSON text. Encode with `base64Json`, decode with `decodeBase64Json` (./bytes.ts).
 * Optional (`?`) means the field may be absent on the wire — Go writes `null` for an empty
 * slice and the API server drops nulls, so readers must default arrays themselves.
 *
 * Constants (group, kinds, labels, annotations, finalizers, ports) and resource descriptors are
 * re-exported from ./constants.ts and ./resources.ts so one import serves both.
 */
import type { KubeList, KubeObject, ObjectMeta } from "./meta.ts";
import type { Position } from "./constants.ts";

export * from "./constants.ts";
export * from "./resources.ts";
export type { KubeList, KubeObject, ListMeta, ManagedFieldsEntry, ObjectMeta, OwnerReference } from "./meta.ts";

/**
 * A Go `[]byte` field on the wire: base64 (RFC 4648 §4, padded) of JSON text.
 * The CRD marks these `type: string, format: byte`; the API server rejects invalid base64.
 */
export type Base64 = string;

// =====================================================================================
// TinyNode
// =====================================================================================

/**
 * A port configuration entry of `TinyNode.spec.ports` (runtime-spec §2.3; components.md §6).
 * `from` empty = the node's own config for `port` (e.g. `_settings`); otherwise the mapping
 * applied to messages arriving on `port` from the source port `from`. Key: (`from`, `port`).
 */
export interface TinyNodePortConfig {
  /** Source full port name `"<sourceNode>:<sourcePort>"`; absent/empty for node-own config. */
  from?: string;
  /** Port on this node the configuration applies to. Required. */
  port: string;
  /** Base64 of a JSON-Schema overlay (`$defs` of `configurable` fields). */
  schema?: Base64;
  /** Base64 of the configuration JSON; may hold `{{expressions}}` evaluated against the payload. */
  configuration?: Base64;
  /** Flow that owns this configuration (editor bookkeeping; ignored by the runtime). */
  flowID?: string;
}

/**
 * Per-edge retry policy (Go `EdgeRetryPolicy`; runtime-spec §2.5, §8).
 * Absent policy = runtime default (3 attempts, only for errors marked retryable; runtime-spec §2.5).
 * The CRD defaults `maxAttempts` to 1 when a policy object is present.
 */
export interface RetryPolicy {
  /**
   * Max total dispatch attempts, 1..10 (CRD minimum/maximum). The apiserver defaults it to 1 (no
   * retry); absent in a hand-written local manifest, which is read as 1 too.
   */
  maxAttempts?: number;
  /** Initial backoff between attempts, ms (runtime default 1000). */
  initialDelayMs?: number;
  /** Backoff multiplier as a decimal string, e.g. `"2.0"` (runtime default 2.0). */
  backoffCoefficient?: string;
  /** Cap on one backoff delay, ms (runtime default 30000). */
  maxDelayMs?: number;
  /** Error codes (`x-error-code`) that stop the retry loop at once. */
  nonRetryableErrorCodes?: string[];
  /**
   * Timeout, ms; 0/absent = no extra deadline. The CRD calls it per-attempt, but the Go runner
   * wraps the WHOLE retry loop in it (runtime-spec §2.5).
   */
  timeoutMs?: number;
}

/**
 * An edge of `TinyNode.spec.edges`; edges live on the SOURCE node (runtime-spec §2.3).
 * The CRD requires all of `id`, `port`, `to`, `flowID`; the runtime never reads `flowID`, so a
 * hand-written local manifest may leave it out.
 */
export interface TinyNodeEdge {
  /** Edge id, conventionally `<fromNode>_<fromPort>-<toNode>_<toPort>`. */
  id: string;
  /** Source port on this node. */
  port: string;
  /** Target full port name `"<targetNode>:<targetPort>"`. */
  to: string;
  /** Flow that owns the edge (editor bookkeeping; ignored by the runtime). */
  flowID?: string;
  /** Optional retry policy. */
  retryPolicy?: RetryPolicy;
}

/** Desired state of a TinyNode. `module` and `component` are required by the CRD. */
export interface TinyNodeSpec {
  /** Module name; informational — ownership and routing use the node NAME (runtime-spec §16.1). */
  module: string;
  /** Component name within the module (key of the module's component map). */
  component: string;
  /** Port configurations (node settings and per-edge mappings). */
  ports?: TinyNodePortConfig[];
  /** Outgoing edges. */
  edges?: TinyNodeEdge[];
}

/** `status.module` of a TinyNode: who serves it. `name` and `version` required. */
export interface TinyNodeModuleStatus {
  /** Unsanitized module name. */
  name: string;
  /** Module version. */
  version: string;
  /** SDK version of the module. */
  sdkVersion?: string;
}

/** `status.component` of a TinyNode. `description` and `info` required. */
export interface TinyNodeComponentStatus {
  /** One-line description. */
  description: string;
  /** Longer explanation. */
  info: string;
  /** Tags (e.g. `SDK`). */
  tags?: string[];
}

/**
 * One port in `TinyNode.status.ports`. All six fields are required by the CRD, so writers must
 * emit `schema`/`configuration` non-null (base64 of `null` JSON at worst) — runtime-spec §16.27.
 */
export interface TinyNodePortStatus {
  /** Port name. */
  name: string;
  /** Human label. */
  label: string;
  /** Canvas position. */
  position: Position;
  /** True for output ports. */
  source: boolean;
  /** Base64 of the port's JSON Schema. */
  schema: Base64;
  /** Base64 of the port's current configuration JSON (credentials masked). */
  configuration: Base64;
}

/**
 * Observed state of a TinyNode, written by the module leader (runtime-spec §5.1) and patched by
 * the runners (metadata, ports; §2.9). The CRD requires `module` and `component` in a stored status
 * (the leader's first write sets them); they are optional here because a status is read before
 * that write and built up by partial patches (a `_reconcile` updater starts from `{}`).
 */
export interface TinyNodeStatus {
  /** `metadata.generation` the controller last reconciled. */
  observedGeneration?: number;
  /** Module serving the node. */
  module?: TinyNodeModuleStatus;
  /** Component description. */
  component?: TinyNodeComponentStatus;
  /** Ports, sorted by name; `_reconcile/_client/_identity` omitted. */
  ports?: TinyNodePortStatus[];
  /** `"OK"` or the error text. */
  status?: string;
  /** Component metadata; keys `_state/<key>` hold base64 SDK state (runtime-spec §16.20). */
  metadata?: Record<string, string>;
  /** True when `status` is an error text. */
  error?: boolean;
  /** RFC 3339 time of the leader's last status write (heartbeat). */
  lastUpdateTime?: string;
}

/**
 * A TinyNode: one component instance placed in a flow. Name `<hash>.<module>.<component>-<sfx>`:
 * always set on a node the runtime sees (the platform names nodes itself; runtime-spec §8), so
 * `metadata.name` is required here.
 */
export interface TinyNode extends KubeObject<TinyNodeSpec, TinyNodeStatus> {
  /** Object metadata, with the node name. */
  metadata: ObjectMeta & { name: string };
  /** Desired state (always written by the platform; `module`/`component` required). */
  spec: TinyNodeSpec;
}

/** A TinyNode to create: `metadata.name`, or `generateName` for the apiserver to complete. */
export type NewTinyNode = Omit<TinyNode, "metadata"> & { metadata: ObjectMeta };

/** A list of TinyNodes. */
export type TinyNodeList = KubeList<TinyNode>;

// =====================================================================================
// TinyModule
// =====================================================================================

/** Desired state of a TinyModule. */
export interface TinyModuleSpec {
  /** `"<name>:<version>"`, set once at creation (runtime-spec §7.3). */
  image?: string;
}

/** One port of a component in `TinyModule.status.components[].ports`. `name`, `source` required. */
export interface TinyModuleComponentPort {
  /** Port name. */
  name: string;
  /** Human label. */
  label?: string;
  /** True for output ports. */
  source: boolean;
  /** Canvas position. */
  position?: Position;
  /** Base64 of the port's JSON Schema. */
  schema?: Base64;
}

/** One compiled component in `TinyModule.status.components`. `name`, `description`, `info` required. */
export interface TinyModuleComponentStatus {
  /** Component name. */
  name: string;
  /** One-line description. */
  description: string;
  /** Longer explanation. */
  info: string;
  /** Tags. */
  tags?: string[];
  /** Ports (system ports `_reconcile/_client/_identity` skipped; runtime-spec §5.2). */
  ports?: TinyModuleComponentPort[];
  /** Short usage snippets. */
  examples?: string[];
}

/** Observed state of a TinyModule. `addr`, `name`, `version`, `components` required. */
export interface TinyModuleStatus {
  /** Address of the module's gRPC server, `host:port`. */
  addr: string;
  /** Unsanitized module name. */
  name: string;
  /** Module version. */
  version: string;
  /** SDK version. */
  sdkVersion?: string;
  /** Compiled components (emit `[]`, never null: the CRD requires it). */
  components: TinyModuleComponentStatus[];
}

/** A TinyModule: a running module. Name = sanitized module name (runtime-spec §7.3). */
export type TinyModule = KubeObject<TinyModuleSpec, TinyModuleStatus>;
/** A list of TinyModules. */
export type TinyModuleList = KubeList<TinyModule>;

// =====================================================================================
// TinyFlow, TinyProject
// =====================================================================================

/** TinyFlow spec: empty; a flow is identified by labels/annotations (runtime-spec §8). */
export type TinyFlowSpec = Record<string, never>;
/** TinyFlow status: empty. */
export type TinyFlowStatus = Record<string, never>;
/** A TinyFlow; label `tinysystems.io/project-name`, annotation `tinysystems.io/flow-description`. */
export type TinyFlow = KubeObject<TinyFlowSpec, TinyFlowStatus>;
/** A list of TinyFlows. */
export type TinyFlowList = KubeList<TinyFlow>;

/** Desired state of a TinyProject. */
export interface TinyProjectSpec {
  /** Markdown description. */
  description?: string;
}
/** TinyProject status: empty. */
export type TinyProjectStatus = Record<string, never>;
/** A TinyProject; annotation `tinysystems.io/project-name` holds its display name. */
export type TinyProject = KubeObject<TinyProjectSpec, TinyProjectStatus>;
/** A list of TinyProjects. */
export type TinyProjectList = KubeList<TinyProject>;

// =====================================================================================
// TinyWidgetPage
// =====================================================================================

/** One widget of a dashboard page. All fields optional (Go `omitempty`). Grid units are cells. */
export interface TinyWidget {
  /** Full port name `"<node>:<port>"` shown; empty for content widgets. */
  port?: string;
  /** Widget name. */
  name?: string;
  /** Base64 of a JSON patch applied to the port's schema. */
  schemaPatch?: Base64;
  /** Grid column. */
  gridX?: number;
  /** Grid row. */
  gridY?: number;
  /** Grid width. */
  gridW?: number;
  /** Grid height. */
  gridH?: number;
  /** Base64 of a full JSON Schema (content widgets). */
  schema?: Base64;
  /** Base64 of JSON data (content widgets). */
  data?: Base64;
}

/** Desired state of a TinyWidgetPage. */
export interface TinyWidgetPageSpec {
  /** Widgets on the page. */
  widgets?: TinyWidget[];
}
/** TinyWidgetPage status: empty. */
export type TinyWidgetPageStatus = Record<string, never>;
/** A TinyWidgetPage; annotations `tinysystems.io/page-name`, `tinysystems.io/page-sort-idx`. */
export type TinyWidgetPage = KubeObject<TinyWidgetPageSpec, TinyWidgetPageStatus>;
/** A list of TinyWidgetPages. */
export type TinyWidgetPageList = KubeList<TinyWidgetPage>;

// =====================================================================================
// TinyScenario
// =====================================================================================

/** Sample data for one port (Go `ScenarioPortData`). */
export interface ScenarioPortData {
  /** Full port name `"<node>:<port>"`. Required. */
  port: string;
  /** Base64 of the JSON sample payload. */
  data?: Base64;
}
/** Desired state of a TinyScenario. */
export interface TinyScenarioSpec {
  /** Per-port sample data. */
  ports?: ScenarioPortData[];
}
/** TinyScenario status: empty. */
export type TinyScenarioStatus = Record<string, never>;
/** A TinyScenario; annotation `tinysystems.io/scenario-name`. */
export type TinyScenario = KubeObject<TinyScenarioSpec, TinyScenarioStatus>;
/** A list of TinyScenarios. */
export type TinyScenarioList = KubeList<TinyScenario>;

// =====================================================================================
// TinyComponent
// =====================================================================================

/**
 * A component defined by a script (runtime-spec §5.3). `component`, `script`, `input`, `output`
 * are required by the CRD; `runtime` defaults to `"js"` on the server.
 */
export interface TinyComponentSpec {
  /** Name TinyNodes reference in `spec.component`; must not shadow a compiled component. */
  component: string;
  /** One-line description. */
  description?: string;
  /** Longer explanation. */
  info?: string;
  /** Runtime serving the script (CRD default `"js"`; empty is read as `"js"`). */
  runtime?: string;
  /** The implementation source. */
  script: string;
  /** JSON Schema of the request's `inputData`, as a plain JSON string (SDK v0.13.130, runtime-spec §17). */
  input: string;
  /** JSON Schema of the response's `outputData`, as a plain JSON string. */
  output: string;
  /** Expose an `error` port. */
  enableErrorPort?: boolean;
}

/** Observed state of a TinyComponent, written by module leaders. */
export interface TinyComponentStatus {
  /** True once a module serves it. */
  installed?: boolean;
  /** Module serving it (empty unless installed). */
  module?: string;
  /** Why `installed` is false. */
  reason?: string;
  /** Spec generation this status describes. */
  observedGeneration?: number;
}

/** A TinyComponent. */
export interface TinyComponent extends KubeObject<TinyComponentSpec, TinyComponentStatus> {
  /** Desired state (required fields per the CRD). */
  spec: TinyComponentSpec;
}
/** A list of TinyComponents. */
export type TinyComponentList = KubeList<TinyComponent>;
