/**
 * The TinyNode fields the runtime and components read. Structurally compatible with the full CRD
 * types (src/k8s/api/v1alpha1.ts); runtime-spec §8.
 */

/** Per-edge retry policy (runtime-spec §2.5, §8). `backoffCoefficient` is a decimal string on the wire. */
export interface RetryPolicyLike {
  maxAttempts?: number;
  initialDelayMs?: number;
  backoffCoefficient?: string;
  maxDelayMs?: number;
  nonRetryableErrorCodes?: string[];
  timeoutMs?: number;
}

/** An edge on the SOURCE node: port on this node → `"<targetNode>:<targetPort>"` (runtime-spec §2.3). */
export interface TinyNodeEdgeLike {
  id: string;
  port: string;
  to: string;
  flowID?: string;
  retryPolicy?: RetryPolicyLike;
}

/**
 * A port config on the TARGET node (runtime-spec §2.3): `from == ""` is node-own (e.g. `_settings`),
 * else the mapping for hops from `"<srcNode>:<srcPort>"`. `configuration`/`schema` are base64 JSON
 * bytes on the wire.
 */
export interface TinyNodePortConfigLike {
  from?: string;
  port: string;
  configuration?: string;
  schema?: string;
  flowID?: string;
}

/** One status port (runtime-spec §2.6): schema/configuration are base64 JSON bytes. */
export interface TinyNodeStatusPortLike {
  name: string;
  label: string;
  position: number;
  source: boolean;
  schema: string;
  configuration: string;
}

/** TinyNode status fields the runtime writes (runtime-spec §8). */
export interface TinyNodeStatusLike {
  status?: string;
  error?: boolean;
  metadata?: Record<string, string>;
  ports?: TinyNodeStatusPortLike[];
  component?: { description: string; info: string; tags?: string[] };
  observedGeneration?: number;
  module?: { name: string; version: string; sdkVersion?: string };
  lastUpdateTime?: string;
}

/** The TinyNode fields tinyhost needs (runtime-spec §8). */
export interface TinyNodeLike {
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; generation?: number };
  spec: { module: string; component: string; ports?: TinyNodePortConfigLike[]; edges?: TinyNodeEdgeLike[] };
  status?: TinyNodeStatusLike;
}

/** Node identity handed to `onIdentity` (runtime-spec §1.4 `NodeIdentity`; JSON names match Go). */
export interface NodeIdentity {
  nodeName: string;
  namespace: string;
  flowName: string;
  projectName: string;
}

/** Label carrying the flow name (runtime-spec §8). */
export const LABEL_FLOW_NAME = "tinysystems.io/flow-name";
/** Label carrying the project name (runtime-spec §8). */
export const LABEL_PROJECT_NAME = "tinysystems.io/project-name";

/** A mutation of a TinyNode applied inside a debounced status patch (runtime-spec §2.4 `_reconcile`). */
export type NodeUpdater = (node: TinyNodeLike) => void;
