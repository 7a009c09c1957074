/**
 * Wire names of the operator.tinysystems.io API: group, version, kinds, plurals, labels,
 * annotations, finalizers and system port names. Each value must equal the Go SDK's
 * (tiny-systems/module api/v1alpha1/*.go) byte for byte — other programs match on them.
 * Source: runtime-spec §1.4, §8; components.md §6.
 */

/** API group of every TinySystems CRD. runtime-spec §8. */
export const GROUP = "operator.tinysystems.io";
/** The one served and stored version. runtime-spec §8. */
export const VERSION = "v1alpha1";
/** `apiVersion` of every TinySystems object: `operator.tinysystems.io/v1alpha1`. */
export const API_VERSION = `${GROUP}/${VERSION}` as const;

/** Kind names of the seven CRDs. runtime-spec §8. */
export const KIND = {
  TinyNode: "TinyNode",
  TinyModule: "TinyModule",
  TinyFlow: "TinyFlow",
  TinyProject: "TinyProject",
  TinyWidgetPage: "TinyWidgetPage",
  TinyScenario: "TinyScenario",
  TinyComponent: "TinyComponent",
} as const;

/** A kind of one of the seven CRDs. */
export type TinyKind = (typeof KIND)[keyof typeof KIND];

/** URL plurals (resource names) of the seven CRDs, keyed by kind. runtime-spec §8. */
export const PLURAL = {
  TinyNode: "tinynodes",
  TinyModule: "tinymodules",
  TinyFlow: "tinyflows",
  TinyProject: "tinyprojects",
  TinyWidgetPage: "tinywidgetpages",
  TinyScenario: "tinyscenarios",
  TinyComponent: "tinycomponents",
} as const satisfies Record<TinyKind, string>;

// ---- labels (api/v1alpha1/tinynode_types.go) ----

/** Label on a TinyNode: the TinyFlow resource name it belongs to. Feeds NodeIdentity.flowName (runtime-spec §1.4). */
export const FLOW_NAME_LABEL = "tinysystems.io/flow-name";
/** Label on nodes, flows, pages, scenarios: the TinyProject resource name. Feeds NodeIdentity.projectName. */
export const PROJECT_NAME_LABEL = "tinysystems.io/project-name";
/** Label that attaches an object to a TinyNode by name. */
export const NODE_NAME_LABEL = "tinysystems.io/node-name";
/** Label carrying the module's major version. */
export const MODULE_VERSION_MAJOR_LABEL = "tinysystems.io/module-version-major";
/** Label marking dashboard nodes. */
export const DASHBOARD_LABEL = "tinysystems.io/dashboard";
/** Label opting a node into an execution mode; see {@link EXECUTION_MODE_DURABLE}. runtime-spec §2.2 step 2. */
export const EXECUTION_MODE_LABEL = "tinysystems.io/execution-mode";
/** Value of {@link EXECUTION_MODE_LABEL} that makes business-port messages mint or continue a durable run. */
export const EXECUTION_MODE_DURABLE = "durable";
/** Namespace label set by `pre-install` on namespaces TinySystems manages (value `"true"`). runtime-spec §8. */
export const MANAGED_NAMESPACE_LABEL = "tinysystems.io/managed";

// ---- annotations (api/v1alpha1/tinynode_types.go, consts.go) ----

/** Annotation on a TinyProject: its display name. runtime-spec §7.3. */
export const PROJECT_NAME_ANNOTATION = "tinysystems.io/project-name";
/** Annotation on a TinyWidgetPage: its title. */
export const PAGE_NAME_ANNOTATION = "tinysystems.io/page-name";
/** Annotation on a TinyWidgetPage: its sort index (decimal string). */
export const PAGE_SORT_IDX_ANNOTATION = "tinysystems.io/page-sort-idx";
/** Annotation on a TinyFlow: its display name. */
export const FLOW_DESCRIPTION_ANNOTATION = "tinysystems.io/flow-description";
/** Annotation on a TinyNode: editor handle layout. */
export const NODE_HANDLES_ANNOTATION = "tinysystems.io/node-handles";
/** Annotation on a TinyNode: flows it is shared with. */
export const SHARED_WITH_FLOWS_ANNOTATION = "tinysystems.io/shared-with-flows";
/** Annotation on a TinyNode: editor x position (decimal string). */
export const COMPONENT_POS_X_ANNOTATION = "tinysystems.io/component-pos-x";
/** Annotation on a TinyNode: editor y position (decimal string). */
export const COMPONENT_POS_Y_ANNOTATION = "tinysystems.io/component-pos-y";
/** Annotation on a TinyNode: editor rotation. */
export const COMPONENT_POS_SPIN_ANNOTATION = "tinysystems.io/component-pos-spin";
/** Annotation on a TinyNode: user label shown in the editor. */
export const NODE_LABEL_ANNOTATION = "tinysystems.io/node-label";
/** Annotation on a TinyNode: user comment. */
export const NODE_COMMENT_ANNOTATION = "tinysystems.io/node-comment";
/** Annotation on the release Ingress: hostname suffix for ExposePort auto hostnames. runtime-spec §7.1 step 6. */
export const INGRESS_HOSTNAME_SUFFIX_ANNOTATION = "tinysystems.io/ingress-hostname-suffix";
/** Annotation on a TinyScenario: its display name. */
export const SCENARIO_NAME_ANNOTATION = "tinysystems.io/scenario-name";
/** Annotation on a TinyNode: the dashboard page it is shown on. */
export const DASHBOARD_PAGE_ANNOTATION = "tinysystems.io/dashboard-page";

// ---- finalizers ----

/** Finalizer every module replica adds to the TinyNodes it owns; removed after OnDestroy. runtime-spec §5.1. */
export const NODE_FINALIZER = "io.tinysystems/node-finalizer";
/** Finalizer a serving module adds to TinyComponents. runtime-spec §5.3. */
export const COMPONENT_FINALIZER = "io.tinysystems/component-finalizer";

// ---- ports (api/v1alpha1/consts.go) ----

/** System port: emitting on it refreshes the node's status (and runs node updaters). runtime-spec §1.4, §2.4. */
export const RECONCILE_PORT = "_reconcile";
/** System port: dashboard/control widgets; a Source port by convention. */
export const CONTROL_PORT = "_control";
/** System port: node settings; its config is the spec.ports entry with empty `from`. */
export const SETTINGS_PORT = "_settings";
/** System port: delivers the Kubernetes client capability. */
export const CLIENT_PORT = "_client";
/** System port: delivers the node identity capability. */
export const IDENTITY_PORT = "_identity";
/**
 * Conventional business output port for failures. NOT a system port (runtime-spec §1.4):
 * it is routed like any other port.
 */
export const ERROR_PORT = "error";

/** The five system port names. runtime-spec §1.4. */
export const SYSTEM_PORTS = [RECONCILE_PORT, CONTROL_PORT, SETTINGS_PORT, CLIENT_PORT, IDENTITY_PORT] as const;

/**
 * Whether a port name is treated as a system port by transports and the runner: any name
 * starting with `_` (runtime-spec §1.4 — publishers route `_*` to `.sysmsg`, no durable run is
 * minted for `_*` ports).
 */
export function isSystemPort(port: string): boolean {
  return port.startsWith("_");
}

/**
 * Port positions on the editor canvas. The Go type is an int enum (module/node.go):
 * Top=0, Right=1, Bottom=2, Left=3. runtime-spec §1.3.
 */
export const Position = { Top: 0, Right: 1, Bottom: 2, Left: 3 } as const;

/** A port position value, 0..3. */
export type Position = (typeof Position)[keyof typeof Position];

/** `status.status` value of a healthy TinyNode; anything else is the error text. runtime-spec §5.1 step 5. */
export const STATUS_OK = "OK";

/** Default `spec.runtime` of a TinyComponent (CRD default). runtime-spec §5.3. */
export const DEFAULT_COMPONENT_RUNTIME = "js";
