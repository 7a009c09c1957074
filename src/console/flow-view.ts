/**
 * The flow as the console's page draws it, read from the in-memory TinyNode API the way the
 * platform's editor reads TinyNodes (components.md §6): a node per TinyNode — its label
 * (`tinysystems.io/node-label`), component, editor position (`tinysystems.io/component-pos-x/y`),
 * status, ports from `status.ports` (base64 JSON schema and configuration, runtime-spec §2.6; the
 * configurations were redacted by the runner) — and an edge per `spec.edges` entry of a source node.
 * The buttons of a `_control` port are its schema's `format: "button"` fields, as the dashboard
 * renders them (components.md §1, e.g. the counter's Reset, the ticker's Start/Stop).
 */
import { COMPONENT_POS_X_ANNOTATION, COMPONENT_POS_Y_ANNOTATION, FLOW_NAME_LABEL } from "../core/api/constants.ts";
import type { TinyNode } from "../core/api/index.ts";
import { displayNames, nodeLabel } from "../local/node-names.ts";
import type { LastError } from "./history.ts";

/** One port of a node, from its status. */
export interface PortView {
  name: string;
  label: string;
  /** True for an output (source) port. */
  source: boolean;
  /** Editor side: 0 top, 1 right, 2 bottom, 3 left (runtime-spec §2.6 position wire values). */
  position: number;
  /** The port's current configuration (decoded; credential-looking values already masked). */
  configuration: unknown;
  /** Fields of the port's schema marked `format: "button"`, in their `propertyOrder` (a `_control` port's buttons). */
  buttons: string[];
}

/** One node of the flow. */
export interface NodeView {
  /** TinyNode name. */
  name: string;
  /** `tinysystems.io/node-label`, if set. */
  label?: string;
  /** The name a human reads (src/local/node-names.ts). */
  shown: string;
  component: string;
  /** Flow name label, if set. */
  flow?: string;
  /** Editor position, px, when both annotations are integers. */
  x?: number;
  y?: number;
  /** `status.status` (`"OK"`, or the error text); `""` before the first reconcile. */
  status: string;
  /** `status.error`. */
  error: boolean;
  /** True when this process runs the node (it has a runner). */
  running: boolean;
  /** The last error one of its hops ended with. */
  lastError?: LastError;
  ports: PortView[];
}

/** One edge: from a source port to a target port. */
export interface EdgeView {
  id: string;
  from: string;
  fromPort: string;
  to: string;
  toPort: string;
}

/** The whole flow. */
export interface FlowView {
  /** Module local mode runs as. */
  module: string;
  nodes: NodeView[];
  edges: EdgeView[];
}

/** What {@link flowView} reads. */
export interface FlowSource {
  module: string;
  /** Every stored TinyNode. */
  items(): TinyNode[];
  /** True when node `name` runs in this process. */
  running(name: string): boolean;
  /** The last hop error of node `name`. */
  lastError(name: string): LastError | undefined;
}

function decode(b64: string | undefined): unknown {
  if (!b64) return undefined;
  try {
    return JSON.parse(Buffer.from(b64, "base64").toString("utf8"));
  } catch {
    return undefined;
  }
}

function position(v: string | undefined): number | undefined {
  if (v === undefined || !/^-?\d+(\.\d+)?$/.test(v.trim())) return undefined;
  return Number(v);
}

type Schema = Record<string, unknown>;
const isObject = (v: unknown): v is Schema => typeof v === "object" && v !== null && !Array.isArray(v);

/** The object schema at the root of a platform schema: itself, or the `$defs` entry its `$ref` names (runtime-spec §12 schema shape). */
function rootObject(schema: unknown): Schema | undefined {
  if (!isObject(schema)) return undefined;
  const ref = schema.$ref;
  if (typeof ref === "string" && ref.startsWith("#/$defs/") && isObject(schema.$defs)) {
    const def = (schema.$defs as Schema)[ref.slice("#/$defs/".length)];
    return isObject(def) ? def : undefined;
  }
  return schema;
}

/** Names of the `format: "button"` properties of `schema`'s root object, by `propertyOrder`. */
export function buttonsOf(schema: unknown): string[] {
  const root = rootObject(schema);
  const props = root && isObject(root.properties) ? (root.properties as Schema) : undefined;
  if (!props) return [];
  return Object.entries(props)
    .filter(([, p]) => isObject(p) && p.format === "button" && (p.type === undefined || p.type === "boolean"))
    .sort(([, a], [, b]) => Number((a as Schema).propertyOrder ?? 0) - Number((b as Schema).propertyOrder ?? 0))
    .map(([name]) => name);
}

/** The flow of `src` (see the module comment). Nodes by name; edges in node order. */
export function flowView(src: FlowSource): FlowView {
  const items = src.items();
  const shown = displayNames(items);
  const nodes: NodeView[] = [];
  const edges: EdgeView[] = [];
  for (const n of items) {
    const name = n.metadata.name!;
    const a = n.metadata.annotations ?? {};
    const x = position(a[COMPONENT_POS_X_ANNOTATION]);
    const y = position(a[COMPONENT_POS_Y_ANNOTATION]);
    const label = nodeLabel(n);
    const flow = n.metadata.labels?.[FLOW_NAME_LABEL];
    const lastError = src.lastError(name);
    nodes.push({
      name,
      ...(label !== undefined ? { label } : {}),
      shown: shown.get(name) ?? name,
      component: n.spec.component,
      ...(flow ? { flow } : {}),
      ...(x !== undefined && y !== undefined ? { x, y } : {}),
      status: n.status?.status ?? "",
      error: n.status?.error === true,
      running: src.running(name),
      ...(lastError ? { lastError } : {}),
      ports: (n.status?.ports ?? []).map((p) => ({
        name: p.name,
        label: p.label,
        source: p.source,
        position: p.position,
        configuration: decode(p.configuration) ?? null,
        buttons: buttonsOf(decode(p.schema)),
      })),
    });
    for (const e of n.spec.edges ?? []) {
      const i = e.to.lastIndexOf(":");
      const to = i > 0 ? e.to.slice(0, i) : e.to;
      // An edge to a node that is not declared is kept: the page draws it dangling.
      edges.push({ id: e.id, from: name, fromPort: e.port, to, toPort: i > 0 ? e.to.slice(i + 1) : "" });
    }
  }
  return { module: src.module, nodes, edges };
}
