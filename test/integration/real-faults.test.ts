/**
 * Faults on a real node (issue 31 item 6): a module installed by `tinyhost provision --image <ref>`
 * (two replicas, the broker as a pod on a volume) serves a durable 2-node flow under a steady load
 * of durable runs (test/support/real-fault-bed.ts); each case injects one fault under that load:
 * 1. kill -9 of the leader's module container (the kubelet restarts it);
 * 2. deletion of the leader pod (the Deployment makes a new one; the other replica takes the Lease);
 * 3. deletion of the NATS pod (the StatefulSet makes it again on the same volume);
 * 4. a kubelet restart; 5. a kube-apiserver restart (same port, certificates and etcd).
 * Each case prints hops sent / completed / duplicated / lost, the load's publish retries, the
 * broker's redeliveries and terminations, and how long until the module's pods are Ready, every
 * TinyNode status is OK and a run begun after the fault has completed. It asserts 0 lost and none
 * terminated, 0 duplicated where the design promises it (every fault but the kill -9: a handler
 * that finished before its step record was written runs again on redelivery, at least once by
 * design), and that everything is OK again within a generous deadline (polled, never timed).
 *
 * The file starts its own cluster (startFaultCluster, not the run's shared getRealCluster): cases 4
 * and 5 restart the kubelet and the apiserver, which other test files of the same process would see.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { tmpdir } from "node:os";
import type { RealCluster } from "../support/real-cluster.ts";
import { containerProcess } from "../support/real-node/container-process.ts";
import { isReady, openFaultBed, startFaultCluster, type FaultBed } from "../support/real-fault-bed.ts";

const START_TIMEOUT_MS = 60 * 60_000;
const RELEASE = "faults";

let cluster: RealCluster;
let bed: FaultBed;

beforeAll(async () => {
  cluster = await startFaultCluster();
  bed = await openFaultBed({
    cluster,
    release: RELEASE,
    tag: "real-faults",
    buildLog: join(process.env.TINYHOST_TEST_TMP ?? tmpdir(), "real-faults-build.log"),
  });
}, START_TIMEOUT_MS);

afterAll(async () => {
  if (bed?.figures.length) console.error(`[real-faults] summary:\n  ${bed.figures.join("\n  ")}`);
  await bed?.close();
  await cluster?.stop();
}, 180_000);

describe("faults on a real node, under durable load", () => {
  test("kill -9 of the leader's module container: the kubelet restarts it, no hop is lost", async () => {
    const leader = await bed.leaderPod();
    const container = leader.status.containerStatuses!.find((c) => c.name === "manager")!;
    const restarts0 = container.restartCount;
    const r = await bed.underLoad(
      "kill -9 module container",
      async () => {
        const proc = containerProcess(cluster.node.slot, container.containerID!.replace(/^containerd:\/\//, ""));
        process.kill(proc.pid, "SIGKILL");
        return `SIGKILL to pid ${proc.pid} of ${leader.metadata.name}`;
      },
      async () => {
        const p = (await bed.modulePods()).find((x) => x.metadata.uid === leader.metadata.uid);
        return (p?.status.containerStatuses?.find((c) => c.name === "manager")?.restartCount ?? 0) > restarts0;
      },
    );
    expect({ lost: r.counts.lost, terminated: r.terminated }).toEqual({ lost: 0, terminated: 0 });
  }, 600_000);

  test("deletion of the leader pod: a new pod comes, the other replica takes the Lease, nothing lost or duplicated", async () => {
    const leader = await bed.leaderPod();
    const r = await bed.underLoad(
      "delete leader pod",
      async () => {
        await bed.api("DELETE", `/api/v1/namespaces/${bed.ns}/pods/${leader.metadata.name}`);
        return `deleted ${leader.metadata.name}`;
      },
      async () => {
        const pods = await bed.modulePods();
        const lease = await bed.api<{ spec: { holderIdentity?: string } }>("GET", `/apis/coordination.k8s.io/v1/namespaces/${bed.ns}/leases/${RELEASE}-lock`);
        return !pods.some((p) => p.metadata.uid === leader.metadata.uid) && !(lease.spec.holderIdentity ?? "").startsWith(leader.metadata.name);
      },
    );
    expect({ lost: r.counts.lost, duplicated: r.counts.duplicated, terminated: r.terminated }).toEqual({ lost: 0, duplicated: 0, terminated: 0 });
  }, 600_000);

  test("deletion of the NATS pod: the broker comes back on its volume, nothing lost or duplicated", async () => {
    const [broker] = await bed.natsPods();
    const r = await bed.underLoad(
      "restart NATS pod",
      async () => {
        await bed.api("DELETE", `/api/v1/namespaces/${bed.ns}/pods/${broker!.metadata.name}`);
        return `deleted ${broker!.metadata.name}`;
      },
      async () => (await bed.natsPods()).some((p) => p.metadata.uid !== broker!.metadata.uid && isReady(p)),
    );
    expect({ lost: r.counts.lost, duplicated: r.counts.duplicated, terminated: r.terminated }).toEqual({ lost: 0, duplicated: 0, terminated: 0 });
  }, 600_000);

  test("a kubelet restart: the pods keep running, nothing lost or duplicated", async () => {
    const containers = async () => (await bed.modulePods()).map((p) => `${p.metadata.uid}/${p.status.containerStatuses?.[0]?.restartCount}`).sort();
    const before = await containers();
    const r = await bed.underLoad(
      "restart kubelet",
      async () => `kubelet back Ready ${await cluster.node.restartKubelet()} ms after its SIGTERM`,
      async () => true,
    );
    expect({ lost: r.counts.lost, duplicated: r.counts.duplicated, terminated: r.terminated }).toEqual({ lost: 0, duplicated: 0, terminated: 0 });
    // The kubelet's restart neither restarted nor replaced a container.
    expect(await containers()).toEqual(before);
  }, 600_000);

  test("a kube-apiserver restart (same port, certificates and etcd): nothing lost or duplicated, statuses OK again", async () => {
    const r = await bed.underLoad(
      "restart kube-apiserver",
      async () => {
        const t = performance.now();
        await cluster.controlPlane.stopApiserver();
        await Bun.sleep(5_000); // long enough for every watch and a Lease renewal to fail
        await cluster.controlPlane.startApiserver();
        return `apiserver down and back /readyz in ${Math.round(performance.now() - t)} ms`;
      },
      async () => true,
    );
    expect({ lost: r.counts.lost, duplicated: r.counts.duplicated, terminated: r.terminated }).toEqual({ lost: 0, duplicated: 0, terminated: 0 });
  }, 600_000);
});
