/**
 * The durable test flow: `door → s1 → s2 → s3 → door:reply`, each node on the module a test
 * chooses (components.md §6 naming), built as the platform writes it (src/cli/scaffold/flow-builder.ts):
 * - `door` (`durable_door`) begins a run with a reply (Go `BeginRunWithReply`) and answers its
 *   caller with `{runId, reply}`;
 * - `s1`…`s3` (`durable_step`) each append their node name to `trail`; a step may hold its first
 *   execution (`holdFirstMs`) so a test can kill the replica running it.
 * Any node may be placed on another module, including a Go module, by naming the module and the
 * component that module serves under that key (same ports: `in {trail, holdFirstMs?}` → `out {trail}`).
 */
import type { TinyNode } from "../../src/core/api/index.ts";
import { buildFlow, type FlowManifests } from "../../src/cli/scaffold/flow-builder.ts";
import { moveNodeToModule } from "./flows.ts";
import { mixedFlow, mixedNodeName, type MixedEdge, type MixedNodeSpec } from "./go-peer.ts";

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

/** Options of {@link mixedDurableFlow}. */
export interface MixedDurableFlowOptions {
  /** Namespace of the nodes. */
  namespace: string;
  /** The flow prefix (test/support/go-peer-bed.ts `flowPrefix`). */
  prefix: string;
  /**
   * Module of each node. With a `door` the run is begun by the door (`durable_door`, Go
   * `BeginRunWithReply`) and `s3` answers it on `door:reply`; without one, `s1` is labelled
   * `tinysystems.io/execution-mode: durable` and mints the run itself (runtime-spec §2.2 step 2).
   */
  modules: { door?: string; s1: string; s2: string; s3: string };
  /** Steps whose first execution of a run waits this long, ms. */
  holdFirstMs?: Partial<Record<StepKeyName, number>>;
}

/** The nodes of a {@link mixedDurableFlow} and their names by key (`door` only with a door). */
export interface MixedDurableFlow {
  nodes: TinyNode[];
  names: Partial<Record<DurableKey, string>> & Record<StepKeyName, string>;
}

/**
 * The durable flow of {@link durableFlow} for the mixed-module bed (test/support/go-peer-bed.ts):
 * the same components under the same names on a Go module (test/go/peer/durable.go) or a tinyhost
 * one (test/fixtures/go-peer/components/durable_*.ts), named and wired as the platform writes
 * them ({@link mixedFlow}).
 */
export function mixedDurableFlow(o: MixedDurableFlowOptions): MixedDurableFlow {
  const step = (k: StepKeyName): MixedNodeSpec => ({
    module: o.modules[k],
    component: "durable_step",
    id: k,
    durable: k === "s1" && o.modules.door === undefined,
  });
  const specs = { s1: step("s1"), s2: step("s2"), s3: step("s3") };
  const door: MixedNodeSpec | undefined = o.modules.door === undefined ? undefined : { module: o.modules.door, component: "durable_door", id: "door" };
  const trail = (k?: StepKeyName) => ({ trail: "{{$.trail}}", ...(k && o.holdFirstMs?.[k] ? { holdFirstMs: o.holdFirstMs[k] } : {}) });
  const edges: MixedEdge[] = [
    { from: specs.s1, to: specs.s2, configuration: trail("s2") },
    { from: specs.s2, to: specs.s3, configuration: trail("s3") },
  ];
  if (door)
    edges.unshift({ from: door, to: specs.s1, configuration: trail("s1") }), edges.push({ from: specs.s3, to: door, toPort: "reply", configuration: trail() });
  const nodes = mixedFlow(o.namespace, o.prefix, door ? [door, specs.s1, specs.s2, specs.s3] : [specs.s1, specs.s2, specs.s3], edges);
  const names: MixedDurableFlow["names"] = {
    s1: mixedNodeName(o.prefix, specs.s1),
    s2: mixedNodeName(o.prefix, specs.s2),
    s3: mixedNodeName(o.prefix, specs.s3),
  };
  if (door) names.door = mixedNodeName(o.prefix, door);
  return { nodes, names };
}
