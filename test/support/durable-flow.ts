/**
 * The durable test flow: `door → s1 → s2 → s3 → door:reply`, each node on the module a test
 * chooses (components.md §6 naming), built as the platform writes it (src/local/flow-builder.ts):
 * - `door` (`durable_door`) begins a run with a reply (Go `BeginRunWithReply`) and answers its
 *   caller with `{runId, reply}`;
 * - `s1`…`s3` (`durable_step`) each append their node name to `trail`; a step may hold its first
 *   execution (`holdFirstMs`) so a test can kill the replica running it.
 * Any node may be placed on another module, including a Go module, by naming the module and the
 * component that module serves under that key (same ports: `in {trail, holdFirstMs?}` → `out {trail}`).
 */
import { buildFlow, type FlowManifests } from "../../src/local/flow-builder.ts";
import { moveNodeToModule } from "./flows.ts";

/** Node keys of the flow. */
export type DurableKey = "door" | "s1" | "s2" | "s3";
/** The step keys (everything but the door). */
export type StepKeyName = Exclude<DurableKey, "door">;

/** Options of {@link durableFlow}. */
export interface DurableFlowOptions {
  /** Module of each node (its sanitized form is the node name's second segment). */
  modules: Record<DurableKey, string>;
  /** Component per node; default `durable_door` / `durable_step`. */
  components?: Partial<Record<DurableKey, string>>;
  /** Steps whose first execution of a run waits this long, ms. */
  holdFirstMs?: Partial<Record<StepKeyName, number>>;
  project?: string;
  flow?: string;
  namespace?: string;
}

/** The built flow and its node names by key. */
export interface DurableFlow {
  manifests: FlowManifests;
  names: Record<DurableKey, string>;
}

/** Builds the flow of {@link DurableFlowOptions}. */
export function durableFlow(o: DurableFlowOptions): DurableFlow {
  const c = (k: DurableKey) => o.components?.[k] ?? (k === "door" ? "durable_door" : "durable_step");
  const trail = (k?: StepKeyName) => ({ trail: "{{$.trail}}", ...(k && o.holdFirstMs?.[k] ? { holdFirstMs: o.holdFirstMs[k] } : {}) });
  const manifests = buildFlow({
    project: o.project ?? "durable",
    flow: o.flow ?? "chain",
    module: o.modules.door,
    ...(o.namespace ? { namespace: o.namespace } : {}),
    nodes: { door: { component: c("door") }, s1: { component: c("s1") }, s2: { component: c("s2") }, s3: { component: c("s3") } },
    edges: [
      { from: "door:out", to: "s1:in", configuration: trail("s1") },
      { from: "s1:out", to: "s2:in", configuration: trail("s2") },
      { from: "s2:out", to: "s3:in", configuration: trail("s3") },
      { from: "s3:out", to: "door:reply", configuration: trail() },
    ],
  });
  const names = {} as Record<DurableKey, string>;
  for (const k of ["door", "s1", "s2", "s3"] as const) {
    names[k] = o.modules[k] === o.modules.door ? manifests.nodes.get(k)!.metadata.name! : moveNodeToModule(manifests, k, o.modules[k]);
  }
  return { manifests, names };
}
