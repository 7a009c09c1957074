/**
 * Builds TinyProject/TinyFlow/TinyNode manifests from a readable flow description, the way the
 * platform writes them (components.md §6; runtime-spec §8):
 * - node names `<md5(project+flow)[:8]>.<module>.<component>-<5 hex>` (suffix derived from the
 *   flow and node key, so regenerating gives the same names);
 * - labels `tinysystems.io/flow-name` and `tinysystems.io/project-name`;
 * - edges on the SOURCE node (`id = <from>_<port>-<to>_<port>`, `flowID` = the flow prefix);
 * - edge mappings on the TARGET node as `spec.ports[]` keyed by `from`, settings as the
 *   `_settings` entry without `from` — all base64 JSON.
 * Used by examples/generate.ts and by tests, so no one hand-edits base64.
 */
import { createHash } from "node:crypto";
import { Document } from "yaml";
import { base64Json } from "../../core/api/bytes.ts";
import { flowHashPrefix, generateNodeName, sanitizeResourceName } from "../../core/api/naming.ts";
import {
  API_VERSION,
  COMPONENT_POS_X_ANNOTATION,
  COMPONENT_POS_Y_ANNOTATION,
  FLOW_DESCRIPTION_ANNOTATION,
  FLOW_NAME_LABEL,
  KIND,
  NODE_LABEL_ANNOTATION,
  PROJECT_NAME_ANNOTATION,
  PROJECT_NAME_LABEL,
  type RetryPolicy,
  type TinyFlow,
  type TinyNode,
  type TinyNodeEdge,
  type TinyNodePortConfig,
  type TinyProject,
} from "../../core/api/v1alpha1.ts";
import { START_SIGNAL_ANNOTATION } from "../../local/constants.ts";
import { TinyError } from "../../core/errors.ts";

/** One node of a flow description. */
export interface NodeDescription {
  /** `spec.component`, e.g. `http_server`. */
  component: string;
  /** Editor label (annotation `tinysystems.io/node-label`). */
  label?: string;
  /** `_settings` configuration (literal JSON). */
  settings?: unknown;
  /** Sent to the node's `_control` when local mode starts it (annotation `tinyhost.io/start-signal`). */
  startSignal?: unknown;
  /** Canvas position `[x, y]`. */
  position?: [number, number];
  /** Name suffix (5 lowercase hex); default derived from the flow and key. */
  suffix?: string;
}

/** One edge: `from`/`to` are `"<nodeKey>:<port>"`. */
export interface EdgeDescription {
  from: string;
  to: string;
  /** Mapping written on the target node; `{{expressions}}` read the source payload. */
  configuration: unknown;
  /** Optional JSON-Schema overlay for `configurable` fields. */
  schema?: unknown;
  /** Optional retry policy on the edge. */
  retryPolicy?: RetryPolicy;
}

/** A flow as a person describes it. */
export interface FlowDescription {
  /** TinyProject resource name. */
  project: string;
  /** Project display name (annotation `tinysystems.io/project-name`); default {@link project}. */
  projectTitle?: string;
  /** Project description (markdown). */
  projectDescription?: string;
  /** TinyFlow resource name. */
  flow: string;
  /** Flow description (annotation `tinysystems.io/flow-description`). */
  description?: string;
  /** Module serving every node (`spec.module`; its sanitized form is the name's 2nd segment). */
  module: string;
  /** Namespace of every object (default `tinysystems`). */
  namespace?: string;
  /** Nodes by key (keys are for the description only). */
  nodes: Record<string, NodeDescription>;
  /** Edges between node ports. */
  edges?: EdgeDescription[];
}

/** The manifests of one flow. */
export interface FlowManifests {
  project: TinyProject;
  flow: TinyFlow;
  /** Nodes by description key, in description order. */
  nodes: Map<string, TinyNode>;
}

/** An edge or node reference that does not resolve. code `"FLOW_DESCRIPTION"`. */
export class FlowDescriptionError extends TinyError<"FLOW_DESCRIPTION"> {
  /** @param message - what is wrong. @param options - `cause`, the underlying error if any. */
  constructor(message: string, options?: { cause?: unknown }) {
    super("FLOW_DESCRIPTION", message, options);
  }
}

/** The node name of `key` in `desc`. @throws FlowDescriptionError for an unknown key. */
export function nodeNameOf(desc: FlowDescription, key: string): string {
  const n = desc.nodes[key];
  if (!n) throw new FlowDescriptionError(`flow ${desc.flow}: no node ${JSON.stringify(key)} (nodes: ${Object.keys(desc.nodes).join(", ")})`);
  const suffix = n.suffix ?? createHash("md5").update(`${desc.project}/${desc.flow}/${key}`).digest("hex").slice(0, 5);
  return generateNodeName(desc.project, desc.flow, desc.module, n.component) + suffix;
}

function address(desc: FlowDescription, ref: string, what: string): { node: string; port: string } {
  const i = ref.indexOf(":");
  if (i <= 0 || i === ref.length - 1) throw new FlowDescriptionError(`flow ${desc.flow}: edge ${what} ${JSON.stringify(ref)} must be "<nodeKey>:<port>"`);
  return { node: nodeNameOf(desc, ref.slice(0, i)), port: ref.slice(i + 1) };
}

/**
 * Builds the manifests of `desc`.
 * @throws FlowDescriptionError when an edge names an unknown node key or is not `key:port`.
 */
export function buildFlow(desc: FlowDescription): FlowManifests {
  const namespace = desc.namespace ?? "tinysystems";
  const prefix = flowHashPrefix(desc.project, desc.flow);
  const labels = { [FLOW_NAME_LABEL]: desc.flow, [PROJECT_NAME_LABEL]: desc.project };
  const project: TinyProject = {
    apiVersion: API_VERSION,
    kind: KIND.TinyProject,
    metadata: { name: desc.project, namespace, annotations: { [PROJECT_NAME_ANNOTATION]: desc.projectTitle ?? desc.project } },
    spec: desc.projectDescription ? { description: desc.projectDescription } : {},
  };
  const flow: TinyFlow = {
    apiVersion: API_VERSION,
    kind: KIND.TinyFlow,
    metadata: {
      name: desc.flow,
      namespace,
      labels: { [PROJECT_NAME_LABEL]: desc.project },
      ...(desc.description ? { annotations: { [FLOW_DESCRIPTION_ANNOTATION]: desc.description } } : {}),
    },
    spec: {},
  };
  const nodes = new Map<string, TinyNode>();
  for (const [key, n] of Object.entries(desc.nodes)) {
    const name = nodeNameOf(desc, key);
    const annotations: Record<string, string> = {};
    if (n.position) {
      annotations[COMPONENT_POS_X_ANNOTATION] = String(n.position[0]);
      annotations[COMPONENT_POS_Y_ANNOTATION] = String(n.position[1]);
    }
    if (n.label) annotations[NODE_LABEL_ANNOTATION] = n.label;
    if (n.startSignal !== undefined) annotations[START_SIGNAL_ANNOTATION] = JSON.stringify(n.startSignal);
    const ports: TinyNodePortConfig[] = [];
    if (n.settings !== undefined) ports.push({ port: "_settings", configuration: base64Json(n.settings, `${key}._settings`) });
    nodes.set(key, {
      apiVersion: API_VERSION,
      kind: KIND.TinyNode,
      metadata: { name, namespace, labels: { ...labels }, ...(Object.keys(annotations).length ? { annotations } : {}) },
      spec: { module: desc.module, component: n.component, ports, edges: [] },
    });
  }
  const byName = new Map([...nodes.values()].map((n) => [n.metadata.name, n]));
  for (const e of desc.edges ?? []) {
    const from = address(desc, e.from, "from");
    const to = address(desc, e.to, "to");
    const edge: TinyNodeEdge = {
      id: `${from.node}_${from.port}-${to.node}_${to.port}`,
      port: from.port,
      to: `${to.node}:${to.port}`,
      flowID: prefix,
      ...(e.retryPolicy ? { retryPolicy: e.retryPolicy } : {}),
    };
    byName.get(from.node)!.spec.edges!.push(edge);
    byName.get(to.node)!.spec.ports!.push({
      from: `${from.node}:${from.port}`,
      port: to.port,
      flowID: prefix,
      configuration: base64Json(e.configuration, `edge ${e.from} → ${e.to}`),
      ...(e.schema !== undefined ? { schema: base64Json(e.schema, `edge ${e.from} → ${e.to} schema`) } : {}),
    });
  }
  for (const n of nodes.values()) {
    if (n.spec.edges!.length === 0) delete n.spec.edges;
    if (n.spec.ports!.length === 0) delete n.spec.ports;
  }
  return { project, flow, nodes };
}

/** One generated file. */
export interface GeneratedFile {
  /** File name, e.g. `00-flow.yaml`, `router.yaml`. */
  name: string;
  /** YAML text. */
  text: string;
}

function decoded(b64: string | undefined): string {
  return b64 ? Buffer.from(b64, "base64").toString("utf8") : "";
}

/**
 * Renders `desc` as files: `00-flow.yaml` (TinyProject + TinyFlow) and `<nodeKey>.yaml` per node,
 * each base64 configuration preceded by a comment with its decoded JSON.
 * @param header comment lines put at the top of every file.
 * @throws FlowDescriptionError as {@link buildFlow}.
 */
export function renderFlowFiles(desc: FlowDescription, header: readonly string[] = []): GeneratedFile[] {
  const m = buildFlow(desc);
  const top = header.map((l) => ` ${l}`).join("\n");
  const files: GeneratedFile[] = [];
  const projectDoc = new Document(m.project);
  if (top) projectDoc.commentBefore = top;
  const flowDoc = new Document(m.flow);
  files.push({ name: "00-flow.yaml", text: `${projectDoc.toString({ lineWidth: 0 })}---\n${flowDoc.toString({ lineWidth: 0 })}` });
  for (const [key, node] of m.nodes) {
    const doc = new Document(node);
    const comment = [top, ` node "${key}": ${node.spec.component}${desc.nodes[key]!.label ? ` — ${desc.nodes[key]!.label}` : ""}`].filter(Boolean).join("\n");
    doc.commentBefore = comment;
    (node.spec.ports ?? []).forEach((p, i) => {
      const item = doc.getIn(["spec", "ports", i], true) as { commentBefore?: string } | undefined;
      if (item) item.commentBefore = ` ${p.from ? `from ${p.from.split(".").pop()}` : "settings"}: ${decoded(p.configuration)}`;
    });
    files.push({ name: `${sanitizeResourceName(key)}.yaml`, text: doc.toString({ lineWidth: 0 }) });
  }
  return files;
}
