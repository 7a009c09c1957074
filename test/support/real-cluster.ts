/**
 * The real cluster of the integration tests that need pods: a control plane of its own (kube-apiserver
 * + etcd, ServiceAccount admission on) and a real node beside it (test/support/real-node/node.ts:
 * containerd, kubelet, kube-proxy, kube-controller-manager, kube-scheduler, CoreDNS, Traefik).
 *
 * Started on the first {@link getRealCluster} call of a test process and shared by every test file
 * in it (`bun test` runs an integration run's files in one process), so a run whose tests need no
 * pods pays nothing. Its own control plane, not the run's shared one: a controller manager and a
 * scheduler acting on the other tests' objects (binding their hand-made pods, finalising their
 * namespaces) would change what those tests see.
 */
import { startControlPlane, type OwnedControlPlane } from "./control-plane.ts";
import { startRealNode, type RealNode } from "./real-node/node.ts";

/** A running real cluster. */
export interface RealCluster {
  /** Its control plane (requests, namespaces, kubeconfigs). */
  controlPlane: OwnedControlPlane;
  /** Its node (ingress URL, exec in the node's namespaces, image import). */
  node: RealNode;
  /** Stops the node, then the control plane. */
  stop(): Promise<void>;
}

/**
 * Starts a control plane and a real node beside it.
 * @param opts.onPart called as each part of the node answers (ms from the node's start).
 * @throws Error naming the part that did not come up (everything started is stopped first).
 */
export async function startRealCluster(opts: { ownerPid?: number; onPart?: (name: string, ms: number) => void } = {}): Promise<RealCluster> {
  // The aggregation layer too: KEDA's metrics adapter (real-keda) serves external.metrics.k8s.io through it.
  const controlPlane = await startControlPlane({ ownerPid: opts.ownerPid, admitServiceAccounts: true, aggregationLayer: true });
  let node: RealNode;
  try {
    node = await startRealNode(controlPlane, { ownerPid: opts.ownerPid, onPart: (p) => opts.onPart?.(p.name, p.readyMs) });
  } catch (err) {
    await controlPlane.stop();
    throw err;
  }
  return {
    controlPlane,
    node,
    async stop() {
      await node.stop();
      await controlPlane.stop();
    },
  };
}

let shared: Promise<RealCluster> | null = null;

/**
 * The real cluster of this test process, started on first use (about 15 s from cached binaries;
 * the first build of the node's binaries takes much longer: README.md) and stopped when the
 * process exits.
 */
export function getRealCluster(): Promise<RealCluster> {
  shared ??= startRealCluster().then((c) => {
    process.once("beforeExit", () => void c.stop());
    return c;
  });
  return shared;
}
