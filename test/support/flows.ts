/**
 * Flows on the real control plane for the end-to-end tests: the release objects ExposePort needs
 * (pods, manager Service and Ingress as the tinysystems-operator chart makes them, runtime-spec §7.1,
 * §12), the example manifests or built flows applied into a test namespace, a node moved to another
 * module (components.md §6 naming), and the platform's `send_signal` — a NATS publish shaped as Go's
 * `wire.Publish` (runtime-spec §4.5): subject `tinymodule.<module>.sysmsg` for `_*` ports,
 * headers `x-to: <node>:<port>` and `x-from: signal`.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import YAML from "yaml";
import { headers as natsHeaders } from "@nats-io/transport-node";
import { INGRESS_HOSTNAME_SUFFIX_ANNOTATION, RESOURCES, type TinyKind, type TinyNode } from "../../src/core/api/index.ts";
import { ingresses, isNotFound, pods, services, type KubeClient, type KubeObject, type ResourceDescriptor } from "../../src/k8s/client/index.ts";
import { tinyNodes } from "../../src/k8s/controllers/index.ts";
import type { FlowManifests } from "../../src/cli/scaffold/flow-builder.ts";
import { connectNats } from "../../src/transport/nats/index.ts";
import { H_FROM, H_TO } from "../../src/transport/nats/wire.ts";
import { waitUntil } from "./process.ts";

const ROOT = resolve(import.meta.dir, "../..");

/** `x-from` of a platform control message: the runner decodes the raw payload into the port (runtime-spec §4.5). */
export const FROM_SIGNAL = "signal";

/** The chart's common labels of a release (provision.md §5.1). */
function releaseLabels(release: string): Record<string, string> {
  return { "app.kubernetes.io/name": "tinysystems-operator", "app.kubernetes.io/instance": release };
}

/** Options of {@link createRelease}. */
export interface ReleaseOptions {
  /** Helm release name (`app.kubernetes.io/instance`); default `tinyhost`. */
  release?: string;
  /** Pod names to create (each module process's HOSTNAME must be one of them). */
  pods: string[];
  /** Ingress annotation `tinysystems.io/ingress-hostname-suffix`; default `e2e.example.com`. */
  ingressSuffix?: string;
}

/**
 * Creates the objects of a module release in `namespace` as the chart does: one pod per name (no
 * kubelet runs them; they only carry the release label the resource manager reads), the manager
 * Service (`grpc` port 8483) and the manager Ingress with the hostname-suffix annotation.
 * @throws KubeApiError when the apiserver refuses an object.
 */
export async function createRelease(kube: KubeClient, namespace: string, o: ReleaseOptions): Promise<void> {
  const release = o.release ?? "tinyhost";
  const labels = releaseLabels(release);
  for (const name of o.pods) {
    await kube.create(
      pods,
      { metadata: { name, labels: { ...labels, "control-plane": "controller-manager" } }, spec: { containers: [{ name: "manager", image: "tinyhost:e2e" }] } },
      { namespace },
    );
  }
  await kube.create(
    services,
    {
      metadata: { name: `${release}-manager-service`, labels: { ...labels, "app.kubernetes.io/component": "manager" } },
      spec: {
        type: "ClusterIP",
        selector: { ...labels, "control-plane": "controller-manager" },
        ports: [{ name: "grpc", port: 8483, targetPort: "grpc", protocol: "TCP" }],
      },
    },
    { namespace },
  );
  await kube.create(
    ingresses,
    {
      metadata: { name: `${release}-manager-ingress`, labels, annotations: { [INGRESS_HOSTNAME_SUFFIX_ANNOTATION]: o.ingressSuffix ?? "e2e.example.com" } },
      spec: { ingressClassName: "nginx", defaultBackend: { service: { name: `${release}-manager-service`, port: { number: 80 } } } },
    },
    { namespace },
  );
}

/**
 * Reads every object of `examples/<name>/*.yaml` (file order), with `metadata.namespace` rewritten
 * to `namespace`.
 * @throws Error naming the file when a document is not an object with a kind.
 */
export function exampleObjects(name: string, namespace: string): KubeObject[] {
  const dir = join(ROOT, "examples", name);
  const out: KubeObject[] = [];
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith(".yaml"))
    .sort()) {
    for (const doc of YAML.parseAllDocuments(readFileSync(join(dir, file), "utf8"))) {
      const obj = doc.toJSON() as KubeObject | null;
      if (!obj || typeof obj.kind !== "string") throw new Error(`examples/${name}/${file}: a document without a kind`);
      obj.metadata = { ...obj.metadata, namespace };
      out.push(obj);
    }
  }
  return out;
}

/** The objects of built manifests (project, flow, nodes), with `metadata.namespace` = `namespace`. */
export function flowObjects(m: FlowManifests, namespace: string): KubeObject[] {
  const all: KubeObject[] = [m.project, m.flow, ...m.nodes.values()];
  return all.map((o) => ({ ...structuredClone(o), metadata: { ...structuredClone(o.metadata), namespace } }));
}

/**
 * Creates TinyProject/TinyFlow/TinyNode objects in `namespace`, projects and flows first.
 * @throws Error for a kind that is not a TinySystems CRD; KubeApiError when the apiserver refuses one.
 */
export async function applyObjects(kube: KubeClient, namespace: string, objects: readonly KubeObject[]): Promise<void> {
  const order = (o: KubeObject) => (o.kind === "TinyProject" ? 0 : o.kind === "TinyFlow" ? 1 : 2);
  for (const obj of [...objects].sort((a, b) => order(a) - order(b))) {
    const res = RESOURCES[obj.kind as TinyKind] as ResourceDescriptor<KubeObject> | undefined;
    if (!res) throw new Error(`applyObjects: ${obj.kind} ${obj.metadata.name} is not a TinySystems kind`);
    await kube.create(res, { ...obj, metadata: { ...obj.metadata, namespace } }, { namespace });
  }
}

/** Node names of `objects` by component (`spec.component`); the first node of each component. */
export function nodesByComponent(objects: readonly KubeObject[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const o of objects) {
    if (o.kind !== "TinyNode") continue;
    const c = (o as TinyNode).spec.component;
    out[c] ??= o.metadata.name!;
  }
  return out;
}

/**
 * Moves node `key` of built manifests to module `module`: its name's module segment and
 * `spec.module` change, and every edge `to`/`id` and port-configuration `from` naming it is
 * rewritten (the platform names a node `<flow>.<module>.<component>-<suffix>`, components.md §6).
 * @returns the node's new name.
 * @throws Error when `key` is not a node of `m`.
 */
export function moveNodeToModule(m: FlowManifests, key: string, module: string): string {
  const node = m.nodes.get(key);
  if (!node) throw new Error(`moveNodeToModule: no node ${JSON.stringify(key)} (nodes: ${[...m.nodes.keys()].join(", ")})`);
  const oldName = node.metadata.name!;
  const parts = oldName.split(".");
  parts[1] = module;
  const newName = parts.join(".");
  node.metadata.name = newName;
  node.spec.module = module;
  const swap = (s: string) => s.split(oldName).join(newName);
  for (const n of m.nodes.values()) {
    for (const e of n.spec.edges ?? []) {
      e.to = swap(e.to);
      e.id = swap(e.id);
    }
    for (const p of n.spec.ports ?? []) if (p.from) p.from = swap(p.from);
  }
  return newName;
}

/**
 * Sends `data` to `<node>:<port>` the way the platform's `send_signal` does (Go `wire.Publish`,
 * fire-and-forget, `From = "signal"`): subject `tinymodule.<module segment of node>.sysmsg` when
 * the port starts with `_`, else `.msg`. Flushes before closing, so the server has the message.
 * @throws Error when `node` has fewer than three dot-separated parts (no module segment).
 */
export async function sendSignal(natsUrl: string, node: string, port: string, data: unknown): Promise<void> {
  const module = node.split(".")[1];
  if (node.split(".").length < 3 || !module) throw new Error(`sendSignal: node ${JSON.stringify(node)} has no module segment`);
  const nc = await connectNats(natsUrl, { name: "e2e-send-signal" });
  try {
    const h = natsHeaders();
    h.set(H_TO, `${node}:${port}`);
    h.set(H_FROM, FROM_SIGNAL);
    nc.publish(`tinymodule.${module}.${port.startsWith("_") ? "sysmsg" : "msg"}`, new TextEncoder().encode(JSON.stringify(data)), { headers: h });
    await nc.flush();
  } finally {
    await nc.close();
  }
}

/** The node's decoded `status.metadata` (empty when it has none or does not exist yet). */
export async function nodeMetadata(kube: KubeClient, namespace: string, name: string): Promise<Record<string, string>> {
  try {
    return (await kube.get(tinyNodes, name, namespace)).status?.metadata ?? {};
  } catch (err) {
    if (isNotFound(err)) return {};
    throw err;
  }
}

/**
 * Waits until the node's `status.metadata[key]` is set and returns it.
 * @throws Error naming the node and key after `timeoutMs`.
 */
export async function waitForMetadata(kube: KubeClient, namespace: string, name: string, key: string, timeoutMs = 20_000): Promise<string> {
  let value: string | undefined;
  await waitUntil(`${name} status.metadata[${key}]`, async () => (value = (await nodeMetadata(kube, namespace, name))[key]) !== undefined, timeoutMs, 100);
  return value!;
}

/**
 * Waits until the leader reconciled every node: `status.observedGeneration` equals the generation
 * and `status.module.name` is set (runtime-spec §5.1 step 8).
 * @throws Error listing the nodes not yet reconciled after `timeoutMs`.
 */
export async function waitForReconciled(kube: KubeClient, namespace: string, names: readonly string[], timeoutMs = 20_000): Promise<void> {
  let pending: string[] = [...names];
  try {
    await waitUntil(
      "nodes reconciled by the leader",
      async () => {
        const left: string[] = [];
        for (const n of pending) {
          const obj = await kube.get(tinyNodes, n, namespace).catch(() => undefined);
          if (!obj?.status?.module?.name || obj.status.observedGeneration !== obj.metadata.generation) left.push(n);
        }
        pending = left;
        return left.length === 0;
      },
      timeoutMs,
      100,
    );
  } catch (err) {
    throw new Error(`${(err as Error).message}; not reconciled: ${pending.join(", ")}`);
  }
}
